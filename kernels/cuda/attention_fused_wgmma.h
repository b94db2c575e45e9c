// The Hopper fused attention kernel (attention_fused_wgmma.cu: TMA, mbarrier
// pipeline, warp specialisation, wgmma), fp16 and bf16, built for sm_90a.
// LaunchAttentionFused (attention.h) runs it whenever WgmmaAttentionRuns
// says the device can; the server and tests call that.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention_shape.h"
#include "kernels/cuda/attention.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// True when the current device runs this kernel for `dtype`: fp16 or bf16 on
// a compute capability 9.0 device (the sm_90a code runs on no other).
bool WgmmaAttentionRuns(DType dtype);

// Key rows of one K/V tile at head_dim (for the split-KV rule).
int WgmmaKvTile(int64_t head_dim);

// How the two consumer warpgroups share the tensor cores.
enum class WgmmaSchedule {
  // FlashAttention-3's ping-pong: they take turns to issue their products.
  // (On the H200 at B = 4, H = 16, N = 4096, d = 128 fp16 it ran 24% slower
  // than kFree: 1.733 against 1.397 ms.)
  kPingPong,
  // No coordination: the warp schedulers interleave them (the default).
  kFree,
};
inline constexpr WgmmaSchedule kDefaultWgmmaSchedule = WgmmaSchedule::kFree;

// `splits` as LaunchAttentionFusedMma (attention_fused_mma.h).
// cudaErrorInvalidValue for fp32, a head_dim outside kFusedCudaHeadDims, or
// a shape whose grid does not fit; cudaErrorNotSupported when the driver has
// no tensor-map encoder.
cudaError_t LaunchAttentionFusedWgmma(const AttentionShape& shape, DType dtype,
                                      const AttentionTensors& tensors, int splits,
                                      WgmmaSchedule schedule, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
