#include "server/run/timing_resolution.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/verification.h"

namespace kbench::server {

using proto::ops::CheckRange;

absl::StatusOr<TimingPlan> ValidateTiming(const v1::TimingOptions& timing, const v1::Limits& limits,
                                          const TimingPlan& defaults) {
  TimingPlan plan = defaults;
  plan.warmup_runs = std::min(plan.warmup_runs, limits.max_warmup_runs());
  plan.max_samples = std::min(plan.max_samples, limits.max_samples());
  plan.time_budget_ms = std::min(plan.time_budget_ms, limits.max_time_budget_ms());
  if (timing.warmup_runs() > 0) plan.warmup_runs = timing.warmup_runs();
  if (timing.min_samples() > 0) plan.min_samples = timing.min_samples();
  if (timing.max_samples() > 0) plan.max_samples = timing.max_samples();
  if (timing.min_time_ms() != 0) plan.min_time_ms = timing.min_time_ms();
  if (timing.time_budget_ms() != 0) plan.time_budget_ms = timing.time_budget_ms();
  if (timing.target_rse() != 0) plan.target_rse = timing.target_rse();
  if (timing.mode() != v1::TIMING_MODE_UNSPECIFIED) plan.mode = timing.mode();
  if (timing.min_effect() != 0) plan.min_effect = timing.min_effect();
  plan.discard_throttled = timing.discard_throttled();
  // Defaults yield to the bounds the request set: a request for at most 3
  // samples, or a 50 ms budget, is not refused for the default minimums.
  if (timing.min_samples() == 0) plan.min_samples = std::min(plan.min_samples, plan.max_samples);
  if (timing.min_time_ms() == 0) plan.min_time_ms = std::min(plan.min_time_ms, plan.time_budget_ms);

  KBENCH_RETURN_IF_ERROR(
      CheckRange("timing.warmup_runs", plan.warmup_runs, 0, limits.max_warmup_runs()));
  KBENCH_RETURN_IF_ERROR(
      CheckRange("timing.max_samples", plan.max_samples, 1, limits.max_samples()));
  if (absl::Status s = CheckRange("timing.min_samples", plan.min_samples, 1, plan.max_samples);
      !s.ok())
    return absl::InvalidArgumentError(
        absl::StrCat(s.message(), " (the upper bound is timing.max_samples)"));
  const double budget_limit = limits.max_time_budget_ms();
  if (!(plan.time_budget_ms > 0 && plan.time_budget_ms <= budget_limit))
    return absl::InvalidArgumentError(
        absl::StrCat("timing.time_budget_ms must be above 0 and at most ", budget_limit, ", got ",
                     plan.time_budget_ms));
  if (!(plan.min_time_ms >= 0 && plan.min_time_ms <= plan.time_budget_ms))
    return absl::InvalidArgumentError(
        absl::StrCat("timing.min_time_ms must be between 0 and timing.time_budget_ms (",
                     plan.time_budget_ms, "), got ", plan.min_time_ms));
  if (!(plan.target_rse > 0 && plan.target_rse <= 1))
    return absl::InvalidArgumentError(
        absl::StrCat("timing.target_rse must be above 0 and at most 1, got ", plan.target_rse));
  if (!(plan.min_effect >= 0 && plan.min_effect <= 1))
    return absl::InvalidArgumentError(
        absl::StrCat("timing.min_effect must be between 0 and 1, got ", plan.min_effect));
  if (!v1::TimingMode_IsValid(plan.mode))
    return absl::InvalidArgumentError(absl::StrCat("timing.mode: unknown mode ", int(plan.mode)));
  plan.deadline_ms = 2 * plan.time_budget_ms + 1000 * limits.max_run_overhead_seconds();
  return plan;
}

v1::TimingOptions ToProto(const TimingPlan& plan) {
  v1::TimingOptions t;
  t.set_warmup_runs(plan.warmup_runs);
  t.set_min_samples(plan.min_samples);
  t.set_min_time_ms(plan.min_time_ms);
  t.set_target_rse(plan.target_rse);
  t.set_time_budget_ms(plan.time_budget_ms);
  t.set_max_samples(plan.max_samples);
  t.set_mode(plan.mode);
  t.set_min_effect(plan.min_effect);
  t.set_discard_throttled(plan.discard_throttled);
  return t;
}

}  // namespace kbench::server
