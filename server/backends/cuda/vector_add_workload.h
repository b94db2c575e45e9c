// The CUDA workload of vector add, c = a + b in fp32: a and b made on the
// device from the problem's seed (kernels/cuda/seeded_fill.h), c poisoned
// with NaN before each checked run, and the variants of
// kernels/cuda/vector_add.h timed by SampleTimer. Errors: INVALID_ARGUMENT
// for a variant or dtype it does not run, RESOURCE_EXHAUSTED when the device
// lacks 12 * n bytes, INTERNAL for a CUDA failure (a sticky one also marks
// the device unhealthy).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/backends/cuda/device_context.h"
#include "server/device.h"

namespace kbench::server::cuda_backend {

inline constexpr char kVectorAddNaive[] = "naive";
inline constexpr char kVectorAddVectorized[] = "vectorized";

// Call with the device entered (DeviceContext::Enter).
absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaVectorAdd(
    std::shared_ptr<DeviceContext> context, const VectorAddProblem& problem);

}  // namespace kbench::server::cuda_backend
