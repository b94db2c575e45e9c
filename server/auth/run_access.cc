#include "server/auth/run_access.h"

#include "absl/strings/str_cat.h"
#include "server/common/echo.h"

namespace kbench::server::auth {

absl::StatusOr<v1::ListRunsRequest> ScopeToCaller(const identity::Principal& who,
                                                  v1::ListRunsRequest request) {
  switch (who.role) {
    case identity::Role::kAdmin:
      return request;
    case identity::Role::kInstructor:
      if (!request.cohort().empty() && request.cohort() != who.cohort) {
        return absl::PermissionDeniedError(
            absl::StrCat("cohort: an instructor sees the runs of their own cohort (", who.cohort,
                         ") only, not of ", Echo(request.cohort())));
      }
      request.set_cohort(who.cohort);
      return request;
    case identity::Role::kLearner:
      if (!request.user().empty() && request.user() != who.user) {
        return absl::PermissionDeniedError(absl::StrCat("user: a learner sees their own runs (",
                                                        who.user, ") only, not those of ",
                                                        Echo(request.user())));
      }
      if (!request.cohort().empty()) {
        return absl::PermissionDeniedError(
            "cohort: a learner sees their own runs only, not a cohort's");
      }
      request.set_user(who.user);
      return request;
  }
  return absl::PermissionDeniedError("unknown role");
}

absl::Status CheckRunAccess(const identity::Principal& who, const std::string& run_id,
                            const std::string& run_user, const std::string& run_cohort) {
  if (who.role == identity::Role::kAdmin) return absl::OkStatus();
  if (who.role == identity::Role::kInstructor && !run_cohort.empty() && run_cohort == who.cohort) {
    return absl::OkStatus();
  }
  if (!run_user.empty() && run_user == who.user) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "run_id: run ", run_id, " is not ",
      who.role == identity::Role::kInstructor ? "of your cohort" : "yours", " (",
      std::string(identity::RoleWithArticle(who.role)), " sees ",
      who.role == identity::Role::kInstructor ? "their cohort's runs" : "their own runs",
      " only)"));
}

}  // namespace kbench::server::auth
