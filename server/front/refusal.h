// Refusals for want of a resource: RESOURCE_EXHAUSTED with a kbench.v1.Refusal
// in the status's binary details (status_mapping.h carries it to the wire),
// so that a client tells a learner's own quota from a busy server and knows
// when to retry.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

// RESOURCE_EXHAUSTED with `message` and a Refusal of `reason`;
// `retry_after_seconds` 0 when the time of a successful retry is unknown.
absl::Status Refused(v1::Refusal::Reason reason, std::string message,
                     double retry_after_seconds = 0);

}  // namespace kbench::server
