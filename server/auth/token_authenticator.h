// The Authenticator of a server with identities: the caller is the user
// whose token the call carries as `authorization: Bearer TOKEN` metadata
// (gRPC) or header (the dashboard). A token of a form no user's has
// (store::CouldBeToken) is refused without a store query; a verified one is cached (token_cache.h)
// so a known user's call asks the store at most once each kTokenCacheTtl; an unknown one is looked
// up by its SHA-256 in the IdentityStore, and counts as a failure of the caller's address
// (failure_limiter.h: past kTokenFailureBurst the address is refused without a query). Forget drops
// a revoked user's tokens at once (the server's RevocationWatch calls it, revocation_watch.h).
#pragma once

#include <string>
#include <string_view>

#include "server/auth/authenticator.h"
#include "server/auth/failure_limiter.h"
#include "server/auth/token_cache.h"
#include "server/store/identity_store.h"

namespace kbench::server::auth {

class TokenAuthenticator final : public Authenticator {
 public:
  // `identities` must outlive the authenticator.
  explicit TokenAuthenticator(store::IdentityStore& identities);

  absl::StatusOr<identity::Principal> Authenticate(
      const grpc::ServerContextBase& context) const override;

  // The caller of an `authorization` value, "Bearer TOKEN", from `peer`
  // (a gRPC peer or an address; "" where unknown: then no failure limit
  // applies). UNAUTHENTICATED, saying how to get a token, when it is
  // missing, malformed, unknown or revoked; RESOURCE_EXHAUSTED when `peer`
  // failed too often; the store's error when it fails.
  absl::StatusOr<identity::Principal> AuthenticateHeader(std::string_view authorization,
                                                         const std::string& peer = "") const;

  // `user` was revoked: their cached tokens stop working now.
  void Forget(const std::string& user) const { cache_.Forget(user); }

 private:
  store::IdentityStore& identities_;
  mutable TokenCache cache_;
  mutable FailureLimiter failures_;
};

}  // namespace kbench::server::auth
