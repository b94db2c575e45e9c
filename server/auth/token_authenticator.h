// The Authenticator of a server with identities: the caller is the user
// whose token the call carries as `authorization: Bearer TOKEN` metadata
// (gRPC) or header (the dashboard), looked up by its SHA-256 in the
// IdentityStore on every call, so a revoked token stops working at once.
#pragma once

#include <string_view>

#include "server/auth/authenticator.h"
#include "server/store/identity_store.h"

namespace kbench::server::auth {

class TokenAuthenticator final : public Authenticator {
 public:
  // `identities` must outlive the authenticator.
  explicit TokenAuthenticator(store::IdentityStore& identities);

  absl::StatusOr<Principal> Authenticate(const grpc::ServerContextBase& context) const override;

  // The caller of an `authorization` value, "Bearer TOKEN". UNAUTHENTICATED,
  // saying how to get a token, when it is missing, malformed, unknown or
  // revoked; the store's error when it fails.
  absl::StatusOr<Principal> AuthenticateHeader(std::string_view authorization) const;

 private:
  store::IdentityStore& identities_;
};

}  // namespace kbench::server::auth
