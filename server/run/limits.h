// What a request may ask for, set by the operator with flags; and the timing
// defaults a zero field of TimingOptions takes. Defaults come from the
// device's capabilities (its memory, whether it is a GPU), each op setting
// its own fields (proto/ops/op.h): a CPU is far slower than a GPU and has
// less memory to give.
#pragma once

#include "kbench/v1/kbench.pb.h"
#include "server/run/run_plan.h"

namespace kbench::server {

// The defaults of every field of v1::Limits for `device`.
v1::Limits DefaultLimits(const v1::DeviceInfo& device);

// Values a zero TimingOptions field takes.
TimingPlan DefaultTiming();

}  // namespace kbench::server
