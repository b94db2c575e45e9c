// The online softmax of the Hopper kernels (attention_fused_wgmma.cu,
// attention_fused_fp8.cu), on S in wgmma's fp32 accumulator layout
// (hopper_ptx.cuh): a thread holds, of row g + 8 h of its warp's 16,
// elements 4 nb + 2 h + e (nb < kCols / 8, e < 2), and the quad of
// threads with the same g holds the row's kCols columns.
#pragma once

#include <cmath>

#include "kernels/cuda/attention/attention_ptx.cuh"

namespace kbench::kernels::cuda {

// One row half h of S, in place: S becomes P = 2^(s * scale_log2 -
// max * scale_log2 + kOffsetLog2), max the row's largest score so far
// (row_max, updated; masked scores are -inf and give P = 0), and row_sum
// (this thread's part of the row's sum; the quad's four parts are summed
// at the end) becomes row_sum * alpha + this tile's sum. Returns alpha,
// how much the row's O shrinks. kOffsetLog2: FlashAttention-3's FP8
// offset (8: P in [0, 256], where E4M3 keeps small values normal), else 0;
// it cancels in O / row_sum.
template <int kCols, int kOffsetLog2 = 0>
__device__ __forceinline__ float OnlineSoftmaxRow(float (&acc)[kCols / 2], int h, float scale_log2,
                                                  float& row_max, float& row_sum) {
  // Four partial maxima and sums: short dependency chains (this is on a
  // consumer's critical path between its matrix products).
  float mx4[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
#pragma unroll
  for (int nb = 0; nb < kCols / 8; ++nb)
    mx4[nb % 4] = fmaxf(mx4[nb % 4], fmaxf(acc[4 * nb + 2 * h], acc[4 * nb + 2 * h + 1]));
  float mx = fmaxf(fmaxf(mx4[0], mx4[1]), fmaxf(mx4[2], mx4[3]));
  mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 1));
  mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 2));
  const float m_new = fmaxf(row_max, mx);
  const float shift = m_new == -INFINITY ? 0.0f : m_new * scale_log2;
  const float alpha = ptx::Exp2(row_max * scale_log2 - shift);
  row_max = m_new;
  const float bias = kOffsetLog2 == 0 ? -shift : float(kOffsetLog2) - shift;
  float sum4[4] = {0, 0, 0, 0};
#pragma unroll
  for (int nb = 0; nb < kCols / 8; ++nb)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      float& x = acc[4 * nb + 2 * h + e];
      x = ptx::Exp2(fmaf(x, scale_log2, bias));
      sum4[nb % 4] += x;
    }
  row_sum = row_sum * alpha + ((sum4[0] + sum4[1]) + (sum4[2] + sum4[3]));
  return alpha;
}

}  // namespace kbench::kernels::cuda
