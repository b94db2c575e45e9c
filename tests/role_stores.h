// The stores of the role tests (dashboard and RunHistory): a RunStore and an
// IdentityStore on one database, as a server with authentication has them,
// with these identities written through the IdentityStore's public calls
// (AddCohort, AddUsers), as `kbench-server admin` would write them:
//   cohorts  fall24, spring25
//   ada      learner of fall24
//   bob      learner of fall24
//   cy       learner of spring25
//   grace    instructor of fall24
//   root     admin (no cohort)
// and no runs until a test accepts its own (AcceptRunsBy).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"

namespace kbench::testing {

// Each seeded user's token.
struct SeededTokens {
  std::string ada, bob, cy, grace, root;
};

struct SeededStores {
  std::unique_ptr<server::store::RunStore> runs;
  std::unique_ptr<server::store::IdentityStore> identities;
  SeededTokens tokens;
};

// Opens both stores on `spec` (as --store takes it), migrated, and seeds the
// identities; the database must hold none of them yet.
absl::StatusOr<SeededStores> OpenSeededStores(const std::string& spec);

// Accepts one queued run per entry of `users`, in order, by that user:
// attention, label "lab1" (run_records.h's AdmittedRun), the i-th with id
// "run-" + (1000 + i), accepted at unix ms 1000 + i.
absl::Status AcceptRunsBy(server::store::RunStore& runs, const std::vector<std::string>& users);

}  // namespace kbench::testing
