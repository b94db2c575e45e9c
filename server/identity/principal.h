// Who is calling: the identity every RPC, run, quota and share is counted
// against. Made by an Authenticator (authenticator.h) from the call's
// metadata; carried by the run's admission (run_observer.h) and its RunCall.
#pragma once

#include <string>
#include <string_view>

namespace kbench::server::identity {

// Ordered: a role may do everything the roles before it may.
enum class Role { kLearner = 1, kInstructor = 2, kAdmin = 3 };

// "learner", "instructor", "admin".
std::string_view RoleName(Role role);

// The name with its article, for messages: "a learner", "an instructor",
// "an admin".
std::string_view RoleWithArticle(Role role);

struct Principal {
  // The user's unique name; empty for the anonymous caller of a server
  // without identities (loopback only).
  std::string user;
  // The cohort the user belongs to; empty for admins and the anonymous caller.
  std::string cohort;
  Role role = Role::kLearner;

  bool anonymous() const { return user.empty(); }
  bool AtLeast(Role r) const { return static_cast<int>(role) >= static_cast<int>(r); }
};

// The caller of a server without identities: one anonymous local user who
// may do everything (the server then listens on loopback only).
inline Principal LocalPrincipal() { return Principal{"", "", Role::kAdmin}; }

}  // namespace kbench::server::identity
