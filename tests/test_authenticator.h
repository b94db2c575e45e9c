// An Authenticator for tests, standing in for the server's real one: the
// call's "authorization: Bearer <token>" header names one of the principals
// it was given (token = user name). Header-only.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "server/auth/authenticator.h"

namespace kbench::testing {

class TestAuthenticator final : public server::auth::Authenticator {
 public:
  // Adds `user` of `cohort` with `role`; call before the server starts.
  void Add(const std::string& user, const std::string& cohort, server::identity::Role role) {
    principals_[user] = {user, cohort, role};
  }

  absl::StatusOr<server::identity::Principal> Authenticate(
      const grpc::ServerContextBase& context) const override {
    const auto& metadata = context.client_metadata();
    const auto header = metadata.find("authorization");
    if (header == metadata.end())
      return absl::UnauthenticatedError("authorization: no bearer token given");
    const std::string value(header->second.data(), header->second.size());
    const std::string prefix = "Bearer ";
    const auto it = value.rfind(prefix, 0) == 0 ? principals_.find(value.substr(prefix.size()))
                                                : principals_.end();
    if (it == principals_.end()) return absl::UnauthenticatedError("authorization: unknown token");
    return it->second;
  }

  // Sets the header that makes `context`'s call come from `user`.
  static void SignIn(grpc::ClientContext& context, const std::string& user) {
    context.AddMetadata("authorization", "Bearer " + user);
  }

 private:
  std::map<std::string, server::identity::Principal> principals_;
};

}  // namespace kbench::testing
