// The CPU backend's workloads, one factory per op (the op's name is the
// key). Adding an op to the CPU backend: write its workload file (which
// defines the factory) and add it to the table in cpu_workloads.cc.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/worker/device.h"

namespace kbench::server::cpu {

// The workload of `problem`'s op, inputs filled from the seed (asking
// `go_on` between chunks, Device::Prepare); INVALID_ARGUMENT for an op this
// backend does not run.
absl::StatusOr<std::unique_ptr<Workload>> PrepareCpuWorkload(const Problem& problem,
                                                             const GoOn& go_on);

}  // namespace kbench::server::cpu
