// The CUDA workload of attention (kernels/cuda/attention.h): Q, K, V made on
// the device from the problem's seed in its dtype (fp32, fp16 or bf16), O
// poisoned with NaN before each checked run and returned to the host as
// float, and the variants
//   naive: S = Q K^T * scale and O = P V by cuBLAS around a mask + softmax
//          kernel, with S (batch * heads * seq_len^2 elements of the dtype)
//          in device memory;
//   fused: one kernel, S never in device memory (head dims
//          kernels::cuda::kFusedHeadDims);
// timed by SampleTimer. Errors: INVALID_ARGUMENT for a variant, dtype or
// head_dim it does not run; RESOURCE_EXHAUSTED, naming the bytes, when the
// device lacks the memory (the scores of naive, most often); INTERNAL for a
// CUDA or cuBLAS failure (a sticky one also marks the device unhealthy).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/backends/cuda/device_context.h"
#include "server/device.h"

namespace kbench::server::cuda_backend {

inline constexpr char kAttentionNaive[] = "naive";
inline constexpr char kAttentionFused[] = "fused";

// What Ops() lists for attention on CUDA.
v1::OpInfo CudaAttentionOp();

// Call with the device entered (DeviceContext::Enter).
absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaAttention(
    std::shared_ptr<DeviceContext> context, const AttentionProblem& problem);

}  // namespace kbench::server::cuda_backend
