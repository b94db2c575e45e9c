// The kbench.v1.Refusal a RESOURCE_EXHAUSTED status carries in its binary
// details (kbench.proto): why a run was refused for want of a resource and
// when a retry can succeed.
#pragma once

#include <grpcpp/support/status.h>

#include <optional>

#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// The refusal in `status`'s details; nullopt when the status is not
// RESOURCE_EXHAUSTED or carries none (a server before Refusal existed).
std::optional<v1::Refusal> RefusalOf(const grpc::Status& status);

// How long a sweep waits for the caller's own quota to reset before it
// retries a refused point: retry_after_seconds of a REASON_QUOTA refusal
// when it is known and at most kMaxQuotaWaitSeconds; nullopt otherwise
// (the point fails as before).
inline constexpr double kMaxQuotaWaitSeconds = 600;
std::optional<double> QuotaWaitSeconds(const grpc::Status& status);

}  // namespace kbench::client
