// The assignments of a server, as each caller may read and write them
// (kbench/v1/assignment.proto): what the Assignments gRPC service and the
// dashboard's assignment pages both answer from.
//
// Who sees what: an assignment belongs to one cohort; its learners and
// instructor see it, admins see all, anyone else gets NOT_FOUND as for an
// unknown name. A submission's report is its owner's, their instructor's
// and admins'. On a leaderboard a learner sees their own name and, unless
// the assignment has show_names, no one else's (nor their kernels). The
// anonymous caller of a server without identities is an admin, and may
// write assignments for no cohort (cohort "": everyone's).
//
// Reports are built from the stored runs on every call (assignment_scores.h),
// never kept, so a run that ends later shows up on the next read. Problems
// and kernels are checked by the run service's own admission (the
// RequestCheck), so an assignment or a submission is refused here for
// exactly what its runs would be.
//
// Every method blocks on the store: call it off gRPC's threads. Any thread;
// the stores serialize their calls.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/assignment.pb.h"
#include "server/identity/principal.h"
#include "server/store/assignment_store.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"

namespace kbench::server {

inline constexpr int kMaxAssignmentProblems = 64;
inline constexpr size_t kMaxAssignmentTitleBytes = 200;
inline constexpr uint32_t kDefaultSubmissionsPerHour = 6;
inline constexpr uint32_t kMaxSubmissionsPerHour = 60;
inline constexpr uint32_t kDefaultRerunTop = 5;
inline constexpr uint32_t kMaxRerunTop = 20;

// What Run's admission says of a request: OK when it would admit it
// (KernelBenchService::CheckRequest).
using RequestCheck = std::function<absl::Status(const v1::RunRequest&)>;

class AssignmentBook {
 public:
  // The stores must outlive the book. A null identity store: the roster
  // lists only those who submitted (a server without identities). A null
  // check: the book is read-only (Save and Submit fail with
  // FAILED_PRECONDITION).
  AssignmentBook(store::AssignmentStore& assignments, store::RunStore& runs,
                 store::IdentityStore* identities, RequestCheck check);

  // Creates or replaces (request.replace) an assignment; see SaveAssignment.
  absl::StatusOr<v1::Assignment> Save(const identity::Principal& caller,
                                      const v1::SaveAssignmentRequest& request);
  absl::StatusOr<v1::Assignment> Close(const identity::Principal& caller, const std::string& name);
  // `cohort` filters an admin's list; others may name only their own.
  absl::StatusOr<std::vector<v1::Assignment>> List(const identity::Principal& caller,
                                                   const std::string& cohort);
  // The assignment, when `caller` may see it; NOT_FOUND otherwise.
  absl::StatusOr<v1::Assignment> Get(const identity::Principal& caller, const std::string& name);
  absl::StatusOr<v1::Submission> Submit(const identity::Principal& caller,
                                        const v1::SubmitRequest& request);
  // NOT_FOUND, as for an unknown id, for a submission `caller` may not read.
  absl::StatusOr<v1::SubmissionReport> Report(const identity::Principal& caller,
                                              const std::string& submission_id);
  // The learner's own submission to the same assignment just before
  // `submission` (re-runs left out), with its source; nullopt for their
  // first. NOT_FOUND, as Report, for a caller who may not read it.
  absl::StatusOr<std::optional<v1::Submission>> Previous(const identity::Principal& caller,
                                                         const v1::Submission& submission);
  absl::StatusOr<std::vector<v1::SubmissionReport>> Submissions(const identity::Principal& caller,
                                                                const std::string& assignment,
                                                                const std::string& user);
  absl::StatusOr<v1::Leaderboard> Leaderboard(const identity::Principal& caller,
                                              const std::string& name);
  absl::StatusOr<v1::Roster> Roster(const identity::Principal& caller, const std::string& cohort);
  // New submissions re-running the best of the top learners; see
  // Assignments.Rerun.
  absl::StatusOr<v1::RerunPlan> Rerun(const identity::Principal& caller,
                                      const v1::RerunRequest& request);

 private:
  // Every report of `submissions` (of `assignment`) from the stored runs.
  absl::StatusOr<std::vector<v1::SubmissionReport>> Reports(
      const v1::Assignment& assignment, const std::vector<v1::Submission>& submissions);

  store::AssignmentStore& assignments_;
  store::RunStore& runs_;
  store::IdentityStore* identities_;
  const RequestCheck check_;
};

}  // namespace kbench::server
