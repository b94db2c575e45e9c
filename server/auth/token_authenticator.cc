#include "server/auth/token_authenticator.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace kbench::server::auth {
namespace {

constexpr char kHowToGetOne[] =
    "get a token with `kbench login --invite CODE --name NAME` (an invite code "
    "comes from your instructor), or set KBENCH_TOKEN";

}  // namespace

TokenAuthenticator::TokenAuthenticator(store::IdentityStore& identities)
    : identities_(identities) {}

absl::StatusOr<Principal> TokenAuthenticator::Authenticate(
    const grpc::ServerContextBase& context) const {
  const auto& metadata = context.client_metadata();
  auto found = metadata.find("authorization");
  if (found == metadata.end()) return AuthenticateHeader("");
  return AuthenticateHeader(std::string_view(found->second.data(), found->second.size()));
}

absl::StatusOr<Principal> TokenAuthenticator::AuthenticateHeader(
    std::string_view authorization) const {
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
  absl::StatusOr<Principal> principal =
      identities_.FindByToken(std::string(authorization.substr(kScheme.size())));
  if (absl::IsNotFound(principal.status())) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token is not valid here (unknown or revoked); ", kHowToGetOne));
  }
  return principal;
}

}  // namespace kbench::server::auth
