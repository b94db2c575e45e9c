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

// Key rows of one K/V tile, and query rows of one block, at head_dim in the
// default config (for the split-KV rule).
int WgmmaKvTile(int64_t head_dim);
int WgmmaQueryRows(int64_t head_dim);

// How the kernel is tiled and how its consumer warpgroups share the tensor
// cores; the benchmark times each (tools/attention_bench.cc --mma-configs).
enum class WgmmaConfig {
  // The consumers run unsynchronised (the warp schedulers interleave
  // them); key tiles of 128 rows (64 at d = 256), 3 stages at d = 128.
  kFree,
  // FlashAttention-3's ping-pong between two consumers: they take turns to
  // issue their products. On the H200, fp16, B = 4, H = 16, N = 4096,
  // d = 128, one pass: 0.948 ms against kFree's 0.991 (B = 4, H = 8,
  // d = 256: 0.915 against 0.957); at d = 64 (three consumers) it is
  // kFree. Key tiles of 192 rows at d = 128 were measured too (no gain)
  // and dropped.
  kPingPong,
};
inline constexpr WgmmaConfig kDefaultWgmmaConfig = WgmmaConfig::kPingPong;

// `splits` as LaunchAttentionFusedMma (attention_fused_mma.h).
// cudaErrorInvalidValue for fp32, a head_dim outside kFusedCudaHeadDims, or
// a shape whose grid does not fit; cudaErrorNotSupported when the driver has
// no tensor-map encoder.
cudaError_t LaunchAttentionFusedWgmma(const AttentionShape& shape, DType dtype,
                                      const AttentionTensors& tensors, int splits,
                                      WgmmaConfig config, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
