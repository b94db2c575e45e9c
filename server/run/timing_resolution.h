// A run's timing plan from its request's TimingOptions: the server's
// defaults for the fields left zero, each field checked against the
// operator's limits (INVALID_ARGUMENT naming the field, the limit and the
// value), and the run's wall-clock bound. Pure functions.
#pragma once

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/run/run_plan.h"

namespace kbench::server {

// Applies defaults to zero fields and checks each against the limits; sets
// the run's wall-clock bound (TimingPlan.deadline_ms) from them.
// Defaults are first clamped to the limits (an operator who lowers
// --max-samples below the default does not make plain requests fail).
absl::StatusOr<TimingPlan> ValidateTiming(const v1::TimingOptions& timing, const v1::Limits& limits,
                                          const TimingPlan& defaults);

// Every field of the plan but its deadline, explicit: validating it again
// gives the same plan.
v1::TimingOptions ToProto(const TimingPlan& plan);

}  // namespace kbench::server
