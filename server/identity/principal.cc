#include "server/identity/principal.h"

namespace kbench::server::auth {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kLearner: return "learner";
    case Role::kInstructor: return "instructor";
    case Role::kAdmin: return "admin";
  }
  return "unknown";
}

}  // namespace kbench::server::auth
