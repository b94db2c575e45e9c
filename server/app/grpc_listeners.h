// The front's gRPC servers: the API on --listen (TLS with --tls-cert) with
// the health service (and reflection with --enable-reflection), and the
// health-only one on --health-listen (plain text), and the health both of
// them tell.
#pragma once

#include <array>
#include <atomic>
#include <memory>

#include "absl/status/statusor.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "server/app/front_services.h"
#include "server/app/server_flags.h"

namespace kbench::server {

// The readiness of every server watched: kbench.v1.KernelBench's status,
// SERVING while some worker is ready. The server as a whole (service "",
// liveness) stays SERVING until the drain shuts the health service down,
// so a slow worker restart never gets the process killed by a liveness
// probe. Set may be called from any thread, before and after Watch; a
// server watched must outlive its last Set.
class ServingHealth {
 public:
  void Watch(grpc::Server* server);
  void Set(bool serving);

 private:
  std::array<std::atomic<grpc::Server*>, 2> servers_{};
};

struct GrpcListeners {
  std::unique_ptr<grpc::Server> server;
  int port = 0;  // the one bound, when --listen asks for port 0
  // The health server's answer (UNIMPLEMENTED) to every method but the
  // health service's; declared first, so that it outlives the server.
  std::unique_ptr<grpc::CallbackGenericService> health_other_methods;
  // Null for --health-listen off.
  std::unique_ptr<grpc::Server> health_server;
};

// Starts both servers, the services registered on the first, and adds them
// to `health`; prints "kbench-server health on HOST:PORT" on stdout for
// --health-listen. An error's message is the whole reason (a certificate
// that cannot be read, an address that cannot be bound).
absl::StatusOr<GrpcListeners> StartGrpcListeners(const ServerFlags& flags, FrontServices& services,
                                                 ServingHealth& health);

}  // namespace kbench::server
