#include "server/auth/token_authenticator.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "server/identity/secret.h"

namespace kbench::server::auth {
namespace {

constexpr char kHowToGetOne[] =
    "get a token with `kbench login --invite CODE --name NAME` (an invite code "
    "comes from your instructor), or set KBENCH_TOKEN";

absl::Status NotValidHere() {
  return absl::UnauthenticatedError(
      absl::StrCat("the token is not valid here (unknown or revoked); ", kHowToGetOne));
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(store::IdentityStore& identities)
    : identities_(identities),
      failures_("unknown tokens", kTokenFailureBurst, kTokenFailureRefill) {}

absl::StatusOr<identity::Principal> TokenAuthenticator::Authenticate(
    const grpc::ServerContextBase& context) const {
  const auto& metadata = context.client_metadata();
  auto found = metadata.find("authorization");
  const std::string peer = context.peer();
  if (found == metadata.end()) return AuthenticateHeader("", peer);
  return AuthenticateHeader(std::string_view(found->second.data(), found->second.size()), peer);
}

absl::StatusOr<identity::Principal> TokenAuthenticator::AuthenticateHeader(
    std::string_view authorization, const std::string& peer) const {
  if (authorization.empty()) {
    return absl::UnauthenticatedError(
        absl::StrCat("this server requires a token and the call carried none; ", kHowToGetOne));
  }
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.substr(0, kScheme.size()) != kScheme ||
      authorization.size() == kScheme.size()) {
    return absl::UnauthenticatedError(
        absl::StrCat("authorization: not \"Bearer TOKEN\"; ", kHowToGetOne));
  }
  const std::string_view token = authorization.substr(kScheme.size());
  const std::string address = peer.empty() ? "" : FailureLimiter::AddressOf(peer);
  const auto now = TokenCache::Clock::now();
  if (!store::CouldBeToken(token)) {
    if (!address.empty()) failures_.Failed(address, now);
    return NotValidHere();
  }
  const std::string hash = identity::SecretHash(token);
  if (std::optional<identity::Principal> cached = cache_.Find(hash, now)) return *cached;
  if (!address.empty()) {
    if (absl::Status allowed = failures_.Check(address, now); !allowed.ok()) return allowed;
  }
  const uint64_t generation = cache_.generation();
  absl::StatusOr<identity::Principal> principal = identities_.FindByToken(std::string(token));
  if (absl::IsNotFound(principal.status())) {
    if (!address.empty()) failures_.Failed(address, now);
    return NotValidHere();
  }
  if (principal.ok()) cache_.Put(hash, *principal, now, generation);
  return principal;
}

}  // namespace kbench::server::auth
