// The CPU backend's workloads, one per op, keyed by the op itself. Each
// op's folder registers its workload (server/worker/backends/<op>/
// cpu_<op>.h) and cpu_workloads.cc lists those registrations; adding an op
// to the CPU backend is its two files there and one line in the list.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ops/op.h"
#include "server/worker/device.h"

namespace kbench::server::worker::backends::cpu {

// One op's CPU workload.
struct CpuOpWorkload {
  const proto::ops::Op* op = nullptr;
  // The workload of a problem of `op`, inputs filled from the seed (asking
  // `go_on` between chunks, Device::Prepare).
  absl::StatusOr<std::unique_ptr<Workload>> (*prepare)(const Problem& problem,
                                                       const GoOn& go_on) = nullptr;
};

// Every op the CPU backend runs.
const std::vector<CpuOpWorkload>& CpuOpWorkloads();

// The workload of `problem`'s op, inputs filled from the seed (asking
// `go_on` between chunks, Device::Prepare); INVALID_ARGUMENT for an op this
// backend does not run.
absl::StatusOr<std::unique_ptr<Workload>> PrepareCpuWorkload(const Problem& problem,
                                                             const GoOn& go_on);

}  // namespace kbench::server::worker::backends::cpu
