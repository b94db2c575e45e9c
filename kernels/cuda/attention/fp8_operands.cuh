// P's E4M3 operand from S's accumulators, as attention_fused_fp8.cu issues
// P V (and tests/gpu_wgmma_fp8_probe.cu checks it, without the rest of the
// kernel).
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/attention_fused_fp8.h"

namespace kbench::kernels::cuda {

// Four floats rounded to E4M3 (cvt.rn.satfinite), a in the lowest byte.
__device__ __forceinline__ uint32_t PackE4M3(float a, float b, float c, float d) {
  uint16_t lo, hi;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;\n" : "=h"(lo) : "f"(a), "f"(b));
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %2, %1;\n" : "=h"(hi) : "f"(c), "f"(d));
  return uint32_t(lo) | uint32_t(hi) << 16;
}

// The A operand of k-step kk (keys 32 kk..32 kk + 31) of P V, from the
// fp32 accumulators of S over kCols keys (hopper_ptx.cuh's layout): the
// accumulators of n8 blocks 4 kk..4 kk + 3, a row's pair of block 2 i then
// its pair of block 2 i + 1 in one register, which holds the positions of
// Fp8VtKey's order (attention_fused_fp8.h) that V^T's keys take.
template <int kCols>
__device__ __forceinline__ void AccumulatorsToFp8A(const float (&acc)[kCols / 2],
                                                   uint32_t (&a)[kCols / 32][4]) {
#pragma unroll
  for (int kk = 0; kk < kCols / 32; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int nb = 4 * kk + 2 * (r / 2), h = r % 2;
      a[kk][r] = PackE4M3(acc[4 * nb + 2 * h], acc[4 * nb + 2 * h + 1], acc[4 * (nb + 1) + 2 * h],
                          acc[4 * (nb + 1) + 2 * h + 1]);
    }
}

}  // namespace kbench::kernels::cuda
