// The CUDA backend's workloads, one per op, keyed by the op itself. Each
// op's folder registers its workload (server/worker/backends/<op>/
// cuda_<op>.h) and cuda_workloads.cc lists those registrations; adding an
// op to the CUDA backend is its two files there and one line in the list.
// Call with the device entered (DeviceContext::Enter).
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ops/op.h"
#include "server/worker/backends/cuda/cuda_workload.h"
#include "server/worker/backends/cuda/device_context.h"
#include "server/worker/device.h"

namespace kbench::server::worker::backends::cuda {

// One op's CUDA workload.
struct CudaOpWorkload {
  const proto::ops::Op* op = nullptr;
  // The workload of a problem of `op`, inputs filled from the seed on the
  // device; RESOURCE_EXHAUSTED (naming the bytes) when the device lacks the
  // memory.
  absl::StatusOr<std::unique_ptr<CudaWorkload>> (*prepare)(std::shared_ptr<DeviceContext> context,
                                                           const Problem& problem) = nullptr;
};

// Every op the CUDA backend runs.
const std::vector<CudaOpWorkload>& CudaOpWorkloads();

// The workload of `problem`'s op, with its learners' kernels loaded
// (CudaWorkload::LoadKernels); INVALID_ARGUMENT for an op this backend
// does not run, or a kernel's launch over the device's limits.
absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaWorkload(
    std::shared_ptr<DeviceContext> context, const Problem& problem);

}  // namespace kbench::server::worker::backends::cuda
