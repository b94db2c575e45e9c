#include "server/front/refusal.h"

#include <utility>

#include "absl/strings/cord.h"
#include "server/common/status_mapping.h"

namespace kbench::server {

absl::Status Refused(v1::Refusal::Reason reason, std::string message, double retry_after_seconds) {
  absl::Status status = absl::ResourceExhaustedError(std::move(message));
  v1::Refusal refusal;
  refusal.set_reason(reason);
  refusal.set_retry_after_seconds(retry_after_seconds);
  status.SetPayload(kGrpcDetailsPayload, absl::Cord(refusal.SerializeAsString()));
  return status;
}

}  // namespace kbench::server
