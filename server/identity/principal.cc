#include "server/identity/principal.h"

namespace kbench::server::identity {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kLearner:
      return "learner";
    case Role::kInstructor:
      return "instructor";
    case Role::kAdmin:
      return "admin";
  }
  return "unknown";
}

std::string_view RoleWithArticle(Role role) {
  switch (role) {
    case Role::kLearner:
      return "a learner";
    case Role::kInstructor:
      return "an instructor";
    case Role::kAdmin:
      return "an admin";
  }
  return "an unknown role";
}

}  // namespace kbench::server::identity
