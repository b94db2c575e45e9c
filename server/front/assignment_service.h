// The Assignments service (kbench/v1/assignment.proto): instructors write
// assignments for their cohort, learners submit kernels to them, and
// everyone reads reports, leaderboards and (instructors) the roster.
//
// Who sees what: an assignment belongs to one cohort; its learners and
// instructor see it, admins see all, anyone else gets NOT_FOUND as for an
// unknown name. A submission's report is its owner's, their instructor's
// and admins'. On a leaderboard a learner sees their own name and, unless
// the assignment has show_names, no one else's (nor their kernels).
//
// Reports are built from the stored runs on every call (assignment_scores.h),
// never kept, so a run that ends later shows up on the next read. Problems
// and kernels are checked by the run service's own admission
// (KernelBenchService::CheckRequest), so an assignment or a submission is
// refused here for exactly what its runs would be. Store work runs on a
// StoreThread of its own, never on a gRPC thread.
#pragma once

#include <string>
#include <vector>

#include "kbench/v1/assignment.grpc.pb.h"
#include "server/auth/authenticator.h"
#include "server/front/service.h"
#include "server/store/assignment_store.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "server/store/store_thread.h"

namespace kbench::server {

inline constexpr int kMaxAssignmentProblems = 64;
inline constexpr size_t kMaxAssignmentTitleBytes = 200;
inline constexpr uint32_t kDefaultSubmissionsPerHour = 6;
inline constexpr uint32_t kMaxSubmissionsPerHour = 60;

class AssignmentService final : public v1::Assignments::CallbackService {
 public:
  // Everything must outlive the service. A null authenticator: every caller
  // is auth::LocalPrincipal(); a null identity store: the roster has no
  // learners to list (a server without identities).
  AssignmentService(store::AssignmentStore& assignments, store::RunStore& runs,
                    store::IdentityStore* identities, const KernelBenchService& run_service,
                    const auth::Authenticator* authenticator);

  grpc::ServerUnaryReactor* SaveAssignment(grpc::CallbackServerContext* context,
                                           const v1::SaveAssignmentRequest* request,
                                           v1::Assignment* response) override;
  grpc::ServerUnaryReactor* CloseAssignment(grpc::CallbackServerContext* context,
                                            const v1::AssignmentName* request,
                                            v1::Assignment* response) override;
  grpc::ServerUnaryReactor* ListAssignments(grpc::CallbackServerContext* context,
                                            const v1::ListAssignmentsRequest* request,
                                            v1::ListAssignmentsResponse* response) override;
  grpc::ServerUnaryReactor* GetAssignment(grpc::CallbackServerContext* context,
                                          const v1::AssignmentName* request,
                                          v1::Assignment* response) override;
  grpc::ServerUnaryReactor* Submit(grpc::CallbackServerContext* context,
                                   const v1::SubmitRequest* request,
                                   v1::Submission* response) override;
  grpc::ServerUnaryReactor* GetSubmission(grpc::CallbackServerContext* context,
                                          const v1::SubmissionId* request,
                                          v1::SubmissionReport* response) override;
  grpc::ServerUnaryReactor* ListSubmissions(grpc::CallbackServerContext* context,
                                            const v1::ListSubmissionsRequest* request,
                                            v1::ListSubmissionsResponse* response) override;
  grpc::ServerUnaryReactor* GetLeaderboard(grpc::CallbackServerContext* context,
                                           const v1::AssignmentName* request,
                                           v1::Leaderboard* response) override;
  grpc::ServerUnaryReactor* GetRoster(grpc::CallbackServerContext* context,
                                      const v1::GetRosterRequest* request,
                                      v1::Roster* response) override;

 private:
  // Authenticates the caller, then runs `work` with them on the store
  // thread and finishes the call with its status.
  template <typename Work>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context, Work work);

  // The assignment, when `caller` may see it; NOT_FOUND otherwise.
  absl::StatusOr<v1::Assignment> Visible(const auth::Principal& caller, const std::string& name);
  // Every report of `submissions` (of `assignment`) from the stored runs.
  absl::StatusOr<std::vector<v1::SubmissionReport>> Reports(
      const v1::Assignment& assignment, const std::vector<v1::Submission>& submissions);
  absl::StatusOr<v1::Assignment> Save(const auth::Principal& caller,
                                      const v1::SaveAssignmentRequest& request);
  absl::StatusOr<v1::Submission> Record(const auth::Principal& caller,
                                        const v1::SubmitRequest& request);
  absl::StatusOr<v1::Roster> RosterOf(const auth::Principal& caller, const std::string& cohort);

  store::AssignmentStore& assignments_;
  store::RunStore& runs_;
  store::IdentityStore* identities_;
  const KernelBenchService& run_service_;
  const auth::Authenticator* authenticator_;
  store::StoreThread thread_;  // last: destroyed first, finishing queued work
};

}  // namespace kbench::server
