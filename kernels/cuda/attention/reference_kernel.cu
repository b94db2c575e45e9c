// The device reference of attention (reference_kernel.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>

#include "kernels/attention/attention_head_dims.h"
#include "kernels/cuda/attention/reference_kernel.h"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

constexpr int kPerLane = kMaxAttentionHeadDim / 32;

__device__ float WarpSum(float x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// One warp per row; rows = batch_heads * seq_len, warps of a block take
// consecutive rows.
template <typename T>
__global__ void AttentionReferenceKernel(const T* q, const T* k, const T* v, float* ref,
                                         int64_t rows, int64_t n, int d, bool causal, float scale) {
  const int lane = threadIdx.x % 32;
  const int64_t row = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;
  const int64_t head = row / n, i = row % n;
  const int64_t head_base = head * n * d;
  float qx[kPerLane];
  for (int t = 0; t < kPerLane; ++t) {
    const int x = lane + 32 * t;
    qx[t] = x < d ? ToFloat(q[head_base + i * d + x]) : 0.0f;
  }
  const int64_t keys = causal ? i + 1 : n;
  auto score = [&](int64_t j) {
    float partial = 0;
    for (int t = 0; t < kPerLane; ++t) {
      const int x = lane + 32 * t;
      if (x < d) partial = fmaf(qx[t], ToFloat(k[head_base + j * d + x]), partial);
    }
    return WarpSum(partial) * scale;
  };
  float max = -INFINITY;
  for (int64_t j = 0; j < keys; ++j) max = fmaxf(max, score(j));
  float sum = 0;
  float acc[kPerLane] = {};
  for (int64_t j = 0; j < keys; ++j) {
    const float p = expf(score(j) - max);
    sum += p;
    for (int t = 0; t < kPerLane; ++t) {
      const int x = lane + 32 * t;
      if (x < d) acc[t] = fmaf(p, ToFloat(v[head_base + j * d + x]), acc[t]);
    }
  }
  for (int t = 0; t < kPerLane; ++t) {
    const int x = lane + 32 * t;
    if (x < d) ref[head_base + i * d + x] = acc[t] / sum;
  }
}

int64_t Blocks(int64_t n, int per_block) { return (n + per_block - 1) / per_block; }

}  // namespace

cudaError_t LaunchAttentionReference(const AttentionShape& shape, DType dtype, const void* q,
                                     const void* k, const void* v, float* ref,
                                     cudaStream_t stream) {
  if (shape.head_dim < 1 || shape.head_dim > kMaxAttentionHeadDim || shape.seq_len < 1 ||
      shape.BatchHeads() < 1)
    return cudaErrorInvalidValue;
  constexpr int kWarps = 8;
  const int64_t rows = shape.BatchHeads() * shape.seq_len;
  if (Blocks(rows, kWarps) > 0x7fffffff) return cudaErrorInvalidValue;
  const unsigned grid = unsigned(Blocks(rows, kWarps));
  const float scale = float(1.0 / std::sqrt(double(shape.head_dim)));
  const int d = int(shape.head_dim);
  switch (dtype) {
    case DType::kFp32:
      AttentionReferenceKernel<<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const float*>(q), static_cast<const float*>(k), static_cast<const float*>(v),
          ref, rows, shape.seq_len, d, shape.causal, scale);
      break;
    case DType::kFp16:
      AttentionReferenceKernel<<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const __half*>(q), static_cast<const __half*>(k),
          static_cast<const __half*>(v), ref, rows, shape.seq_len, d, shape.causal, scale);
      break;
    case DType::kBf16:
      AttentionReferenceKernel<<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k),
          static_cast<const __nv_bfloat16*>(v), ref, rows, shape.seq_len, d, shape.causal, scale);
      break;
    case DType::kFp8:
      AttentionReferenceKernel<<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const __nv_fp8_e4m3*>(q), static_cast<const __nv_fp8_e4m3*>(k),
          static_cast<const __nv_fp8_e4m3*>(v), ref, rows, shape.seq_len, d, shape.causal, scale);
      break;
  }
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
