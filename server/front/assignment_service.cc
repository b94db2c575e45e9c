#include "server/front/assignment_service.h"

#include <utility>

#include "kernels/common/status_macros.h"
#include "server/common/status_mapping.h"

namespace kbench::server {

AssignmentService::AssignmentService(AssignmentBook& book, const auth::Authenticator* authenticator)
    : book_(book), authenticator_(authenticator) {}

template <typename Work>
grpc::ServerUnaryReactor* AssignmentService::Serve(grpc::CallbackServerContext* context,
                                                   Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<identity::Principal> caller =
      authenticator_ ? authenticator_->Authenticate(*context) : identity::LocalPrincipal();
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  thread_.Post([reactor, work = std::move(work), caller = *std::move(caller)]() mutable {
    reactor->Finish(ToGrpcStatus(work(caller)));
  });
  return reactor;
}

// `*response` = what `answer` returns, or its error.
#define KBENCH_ANSWER(context, expression)                                      \
  Serve(context, [this, request, response](const identity::Principal& caller) { \
    auto answer = (expression);                                                 \
    if (answer.ok()) *response = *std::move(answer);                            \
    return answer.status();                                                     \
  })

grpc::ServerUnaryReactor* AssignmentService::SaveAssignment(
    grpc::CallbackServerContext* context, const v1::SaveAssignmentRequest* request,
    v1::Assignment* response) {
  return KBENCH_ANSWER(context, book_.Save(caller, *request));
}

grpc::ServerUnaryReactor* AssignmentService::CloseAssignment(grpc::CallbackServerContext* context,
                                                             const v1::AssignmentName* request,
                                                             v1::Assignment* response) {
  return KBENCH_ANSWER(context, book_.Close(caller, request->name()));
}

grpc::ServerUnaryReactor* AssignmentService::ListAssignments(
    grpc::CallbackServerContext* context, const v1::ListAssignmentsRequest* request,
    v1::ListAssignmentsResponse* response) {
  return Serve(context, [this, request, response](const identity::Principal& caller) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<v1::Assignment> all, book_.List(caller, request->cohort()));
    for (v1::Assignment& assignment : all) *response->add_assignments() = std::move(assignment);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* AssignmentService::GetAssignment(grpc::CallbackServerContext* context,
                                                           const v1::AssignmentName* request,
                                                           v1::Assignment* response) {
  return KBENCH_ANSWER(context, book_.Get(caller, request->name()));
}

grpc::ServerUnaryReactor* AssignmentService::Submit(grpc::CallbackServerContext* context,
                                                    const v1::SubmitRequest* request,
                                                    v1::Submission* response) {
  return KBENCH_ANSWER(context, book_.Submit(caller, *request));
}

grpc::ServerUnaryReactor* AssignmentService::GetSubmission(grpc::CallbackServerContext* context,
                                                           const v1::SubmissionId* request,
                                                           v1::SubmissionReport* response) {
  return KBENCH_ANSWER(context, book_.Report(caller, request->submission_id()));
}

grpc::ServerUnaryReactor* AssignmentService::ListSubmissions(
    grpc::CallbackServerContext* context, const v1::ListSubmissionsRequest* request,
    v1::ListSubmissionsResponse* response) {
  return Serve(context, [this, request, response](const identity::Principal& caller) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<v1::SubmissionReport> reports,
                            book_.Submissions(caller, request->assignment(), request->user()));
    for (v1::SubmissionReport& report : reports) *response->add_submissions() = std::move(report);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* AssignmentService::GetLeaderboard(grpc::CallbackServerContext* context,
                                                            const v1::AssignmentName* request,
                                                            v1::Leaderboard* response) {
  return KBENCH_ANSWER(context, book_.Leaderboard(caller, request->name()));
}

grpc::ServerUnaryReactor* AssignmentService::GetRoster(grpc::CallbackServerContext* context,
                                                       const v1::GetRosterRequest* request,
                                                       v1::Roster* response) {
  return KBENCH_ANSWER(context, book_.Roster(caller, request->cohort()));
}

grpc::ServerUnaryReactor* AssignmentService::Rerun(grpc::CallbackServerContext* context,
                                                   const v1::RerunRequest* request,
                                                   v1::RerunPlan* response) {
  return KBENCH_ANSWER(context, book_.Rerun(caller, *request));
}

#undef KBENCH_ANSWER

}  // namespace kbench::server
