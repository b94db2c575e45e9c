// What a request may ask for, set by the operator with flags; and the timing
// defaults a zero field of TimingOptions takes. Defaults depend on the
// backend: a CPU is far slower than a GPU and has less memory to give.
#pragma once

#include <string>

#include "kbench/v1/kbench.pb.h"
#include "server/runner.h"

namespace kbench::server {

// backend: "cpu" or "cuda" (the backend actually opened).
v1::Limits DefaultLimits(const std::string& backend);

// Values a zero TimingOptions field takes.
TimingPlan DefaultTiming();

v1::TimingOptions ToProto(const TimingPlan& plan);

}  // namespace kbench::server
