#include "tests/role_stores.h"

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/status_macros.h"
#include "server/identity/principal.h"
#include "tests/run_records.h"

namespace kbench::testing {

absl::StatusOr<SeededStores> OpenSeededStores(const std::string& spec) {
  using server::identity::Role;
  SeededStores stores;
  KBENCH_ASSIGN_OR_RETURN(stores.runs, server::store::OpenStore(spec));
  KBENCH_ASSIGN_OR_RETURN(stores.identities, server::store::OpenIdentityStore(spec));
  KBENCH_RETURN_IF_ERROR(stores.identities->AddCohort("fall24"));
  KBENCH_RETURN_IF_ERROR(stores.identities->AddCohort("spring25"));
  KBENCH_ASSIGN_OR_RETURN(std::vector<std::string> tokens,
                          stores.identities->AddUsers({
                              {"ada", Role::kLearner, "fall24", ""},
                              {"bob", Role::kLearner, "fall24", ""},
                              {"cy", Role::kLearner, "spring25", ""},
                              {"grace", Role::kInstructor, "fall24", ""},
                              {"root", Role::kAdmin, "", ""},
                          }));
  stores.tokens = {
      .ada = tokens[0], .bob = tokens[1], .cy = tokens[2], .grace = tokens[3], .root = tokens[4]};
  return stores;
}

absl::Status AcceptRunsBy(server::store::RunStore& runs, const std::vector<std::string>& users) {
  int64_t t = 1000;
  for (const std::string& user : users) {
    KBENCH_RETURN_IF_ERROR(
        runs.Accept(AdmittedRun("run-" + std::to_string(t), t, "lab1", "attention", user)));
    ++t;
  }
  return absl::OkStatus();
}

}  // namespace kbench::testing
