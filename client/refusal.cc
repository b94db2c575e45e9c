#include "client/refusal.h"

namespace kbench::client {

std::optional<v1::Refusal> RefusalOf(const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED || status.error_details().empty())
    return std::nullopt;
  v1::Refusal refusal;
  if (!refusal.ParseFromString(status.error_details())) return std::nullopt;
  return refusal;
}

std::optional<double> QuotaWaitSeconds(const grpc::Status& status) {
  const std::optional<v1::Refusal> refusal = RefusalOf(status);
  if (!refusal || refusal->reason() != v1::Refusal::REASON_QUOTA) return std::nullopt;
  const double wait = refusal->retry_after_seconds();
  if (!(wait > 0 && wait <= kMaxQuotaWaitSeconds)) return std::nullopt;
  return wait;
}

}  // namespace kbench::client
