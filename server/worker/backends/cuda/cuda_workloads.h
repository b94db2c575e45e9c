// The CUDA backend's workloads, one factory per op (the op's name is the
// key). Adding an op to the CUDA backend: write its workload file and add
// it to the table in cuda_workloads.cc. Call with the device entered
// (DeviceContext::Enter).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/worker/backends/cuda/device_context.h"
#include "server/worker/device.h"

namespace kbench::server::cuda_backend {

// The workload of `problem`'s op, inputs filled from the seed on the
// device; INVALID_ARGUMENT for an op this backend does not run,
// RESOURCE_EXHAUSTED (naming the bytes) when the device lacks the memory.
absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaWorkload(
    std::shared_ptr<DeviceContext> context, const Problem& problem);

}  // namespace kbench::server::cuda_backend
