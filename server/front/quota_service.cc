#include "server/front/quota_service.h"

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/common/echo.h"
#include "server/common/status_mapping.h"
#include "server/front/quota_limits.h"

namespace kbench::server {
namespace {

constexpr size_t kMaxCohortLength = 128;

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// PERMISSION_DENIED unless `caller` is an admin or the instructor of `cohort`.
absl::Status MayManage(const identity::Principal& caller, const std::string& cohort) {
  if (caller.AtLeast(identity::Role::kAdmin) ||
      (caller.AtLeast(identity::Role::kInstructor) && caller.cohort == cohort))
    return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("cohort: only the instructor of cohort ",
                                                  Echo(cohort),
                                                  " or an admin may manage its quotas"));
}

absl::Status CheckCohort(const std::string& cohort) {
  if (cohort.empty() || cohort.size() > kMaxCohortLength)
    return absl::InvalidArgumentError(
        absl::StrCat("cohort must be 1 to ", kMaxCohortLength, " bytes, got ", cohort.size()));
  return absl::OkStatus();
}

}  // namespace

QuotaService::QuotaService(QuotaGate& gate, store::RunStore& store,
                           const auth::Authenticator* authenticator)
    : gate_(gate), store_(store), authenticator_(authenticator) {}

absl::StatusOr<identity::Principal> QuotaService::Caller(
    const grpc::CallbackServerContext& context) const {
  return authenticator_ ? authenticator_->Authenticate(context) : identity::LocalPrincipal();
}

v1::QuotaReport QuotaService::CohortReport(const std::string& cohort) const {
  v1::QuotaReport report;
  report.set_cohort(cohort);
  *report.mutable_limits() = gate_.CohortQuotas(cohort);
  *report.mutable_overrides() = gate_.OverridesOf(cohort);
  return report;
}

grpc::ServerUnaryReactor* QuotaService::GetQuotas(grpc::CallbackServerContext* context,
                                                  const v1::GetQuotasRequest* request,
                                                  v1::QuotaReport* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::StatusOr<identity::Principal> caller = Caller(*context);
  absl::Status allowed = caller.status();
  if (allowed.ok() && !request->cohort().empty()) allowed = MayManage(*caller, request->cohort());
  if (!allowed.ok()) {
    reactor->Finish(ToGrpcStatus(allowed));
    return reactor;
  }
  if (!request->cohort().empty()) {
    *response = CohortReport(request->cohort());
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  thread_.Post([this, reactor, response, caller = *caller] {
    v1::QuotaReport report = CohortReport(caller.cohort);
    *report.mutable_limits() = gate_.QuotasOf(caller);
    report.set_unlimited(caller.role != identity::Role::kLearner);
    absl::StatusOr<v1::QuotaUsage> usage = gate_.UsageOf(caller.user, NowUnixMs());
    if (usage.ok()) {
      *report.mutable_usage() = *std::move(usage);
      *response = std::move(report);
    }
    reactor->Finish(ToGrpcStatus(usage.status()));
  });
  return reactor;
}

grpc::ServerUnaryReactor* QuotaService::SetCohortQuotas(grpc::CallbackServerContext* context,
                                                        const v1::SetCohortQuotasRequest* request,
                                                        v1::QuotaReport* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::StatusOr<identity::Principal> caller = Caller(*context);
  absl::Status allowed = caller.status();
  if (allowed.ok()) allowed = CheckCohort(request->cohort());
  if (allowed.ok()) allowed = MayManage(*caller, request->cohort());
  if (allowed.ok()) allowed = CheckOverrides(request->overrides());
  if (!allowed.ok()) {
    reactor->Finish(ToGrpcStatus(allowed));
    return reactor;
  }
  thread_.Post([this, reactor, request, response] {
    // One writer (this thread) at a time, so the merge cannot lose a set.
    v1::QuotaOverrides merged = gate_.OverridesOf(request->cohort());
    merged.MergeFrom(request->overrides());
    const absl::Status stored = store_.SetCohortQuotas(request->cohort(), merged, NowUnixMs());
    if (stored.ok()) {
      gate_.SetOverrides(request->cohort(), merged);
      *response = CohortReport(request->cohort());
    }
    reactor->Finish(ToGrpcStatus(stored));
  });
  return reactor;
}

}  // namespace kbench::server
