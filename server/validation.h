// Admission checks: turn a request into a problem and a timing plan, or
// refuse it with INVALID_ARGUMENT whose message names the field, the limit
// and the value given (e.g. "seq_len must be between 1 and 8192, got 0").
// Pure functions of the request, the limits and what the device offers.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/device.h"
#include "server/runner.h"

namespace kbench::server {

// What a run needs once admitted. seed is the request's, 0 until the
// service picks one.
template <typename Problem>
struct AdmittedRun {
  Problem problem;
  TimingPlan plan;
  std::string label;
};

absl::StatusOr<AdmittedRun<VectorAddProblem>> ValidateVectorAdd(
    const v1::VectorAddRequest& request, const v1::Limits& limits,
    const std::vector<v1::OpInfo>& ops, const TimingPlan& defaults);

absl::StatusOr<AdmittedRun<AttentionProblem>> ValidateAttention(
    const v1::AttentionRequest& request, const v1::Limits& limits,
    const std::vector<v1::OpInfo>& ops, const TimingPlan& defaults);

// Applies defaults to zero fields and checks each against the limits.
absl::StatusOr<TimingPlan> ValidateTiming(const v1::TimingOptions& timing,
                                          const v1::Limits& limits,
                                          const TimingPlan& defaults);

}  // namespace kbench::server
