// Turns an RPC's metadata into a Principal. Every service of the front
// (KernelBench, RunHistory, ...) asks its Authenticator first, in the
// handler, before it reads the request.
#pragma once

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "server/identity/principal.h"

namespace kbench::server::auth {

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // The caller of the RPC of `context`. UNAUTHENTICATED, naming what is
  // wrong, when the call carries no valid credentials. Must not block for
  // long: it runs on gRPC's threads. Thread-safe.
  virtual absl::StatusOr<identity::Principal> Authenticate(
      const grpc::ServerContextBase& context) const = 0;
};

// A server without identities: every caller is LocalPrincipal().
class OpenAuthenticator final : public Authenticator {
 public:
  absl::StatusOr<identity::Principal> Authenticate(const grpc::ServerContextBase&) const override {
    return identity::LocalPrincipal();
  }
};

}  // namespace kbench::server::auth
