// Who may read which runs: a learner their own, an instructor their
// cohort's, an admin (and the anonymous caller of a server without
// authentication, which serves loopback only) every run. The one place the
// history RPCs and the dashboard ask.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/history.pb.h"
#include "server/identity/principal.h"

namespace kbench::server::auth {

// `request` narrowed to the runs `who` may read: a learner's to their user,
// an instructor's to their cohort. PERMISSION_DENIED, naming the field, when
// the request asks for another user's or cohort's runs.
absl::StatusOr<v1::ListRunsRequest> ScopeToCaller(const identity::Principal& who,
                                                  v1::ListRunsRequest request);

// OK when `who` may read a run of `run_user`, a user of `run_cohort` (empty
// when the user is unknown); else PERMISSION_DENIED naming the run.
absl::Status CheckRunAccess(const identity::Principal& who, const std::string& run_id,
                            const std::string& run_user, const std::string& run_cohort);

}  // namespace kbench::server::auth
