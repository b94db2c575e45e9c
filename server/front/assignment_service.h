// The Assignments service (kbench/v1/assignment.proto): the gRPC face of
// the AssignmentBook (assignment_book.h, which says who sees what).
// Book calls block on the store, so they run on a StoreThread of the
// service's own, never on a gRPC thread.
#pragma once

#include <string>
#include <vector>

#include "kbench/v1/assignment.grpc.pb.h"
#include "server/auth/authenticator.h"
#include "server/front/assignment_book.h"
#include "server/store/store_thread.h"

namespace kbench::server {

class AssignmentService final : public v1::Assignments::CallbackService {
 public:
  // The book and the authenticator must outlive the service. A null
  // authenticator: every caller is identity::LocalPrincipal().
  AssignmentService(AssignmentBook& book, const auth::Authenticator* authenticator);

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
  grpc::ServerUnaryReactor* Rerun(grpc::CallbackServerContext* context,
                                  const v1::RerunRequest* request,
                                  v1::RerunPlan* response) override;

 private:
  // Authenticates the caller, then runs `work` with them on the store
  // thread and finishes the call with its status.
  template <typename Work>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context, Work work);

  AssignmentBook& book_;
  const auth::Authenticator* authenticator_;
  store::StoreThread thread_;  // last: destroyed first, finishing queued work
};

}  // namespace kbench::server
