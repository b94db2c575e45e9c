// The device references and the comparison kernel (reference_kernels.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda/dtype_convert.cuh"
#include "kernels/cuda/reference_kernels.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;

template <typename T>
__global__ void VectorAddReferenceKernel(const T* a, const T* b, float* ref, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) ref[i] = ToFloat(a[i]) + ToFloat(b[i]);
}

constexpr int kPerLane = kMaxReferenceHeadDim / 32;

__device__ float WarpSum(float x) {
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// One warp per row; rows = batch_heads * seq_len, warps of a block take
// consecutive rows.
template <typename T>
__global__ void AttentionReferenceKernel(const T* q, const T* k, const T* v, float* ref,
                                         int64_t rows, int64_t n, int d, bool causal,
                                         float scale) {
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

__device__ void Add(ComparisonPartial& c, int64_t index, float out, double ref, double atol,
                    double rtol) {
  ++c.checked;
  c.sum_sq_ref += ref * ref;
  double excess = INFINITY;
  if (!isfinite(out)) {
    ++c.non_finite;
  } else {
    const double err = fabs(double(out) - ref);
    const double bound = atol + rtol * fabs(ref);
    c.max_abs_error = fmax(c.max_abs_error, err);
    c.sum_sq_error += err * err;
    if (err > bound) ++c.over_tolerance;
    excess = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0);
  }
  if (c.worst_index < 0 || excess > c.worst_excess ||
      (excess == c.worst_excess && index < c.worst_index)) {
    c.worst_index = index;
    c.worst_excess = excess;
  }
}

__device__ void Merge(ComparisonPartial& into, const ComparisonPartial& other) {
  if (other.worst_index >= 0 &&
      (into.worst_index < 0 || other.worst_excess > into.worst_excess ||
       (other.worst_excess == into.worst_excess && other.worst_index < into.worst_index))) {
    into.worst_index = other.worst_index;
    into.worst_excess = other.worst_excess;
  }
  into.checked += other.checked;
  into.non_finite += other.non_finite;
  into.over_tolerance += other.over_tolerance;
  into.max_abs_error = fmax(into.max_abs_error, other.max_abs_error);
  into.sum_sq_error += other.sum_sq_error;
  into.sum_sq_ref += other.sum_sq_ref;
}

template <typename T>
__global__ void CompareKernel(const T* out, const float* ref, int64_t n, double atol,
                              double rtol, ComparisonPartial* partials) {
  __shared__ ComparisonPartial shared[kBlock];
  ComparisonPartial c{0, 0, 0, 0.0, 0.0, 0.0, -1, 0.0};
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    Add(c, i, ToFloat(out[i]), double(ref[i]), atol, rtol);
  shared[threadIdx.x] = c;
  __syncthreads();
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) Merge(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

int64_t Blocks(int64_t n, int per_block) { return (n + per_block - 1) / per_block; }

}  // namespace

cudaError_t LaunchVectorAddReference(DType dtype, const void* a, const void* b, float* ref,
                                     int64_t n, cudaStream_t stream) {
  if (n < 1 || Blocks(n, kBlock) > 0x7fffffff) return cudaErrorInvalidValue;
  const unsigned grid = unsigned(Blocks(n, kBlock));
  switch (dtype) {
    case DType::kFp32:
      VectorAddReferenceKernel<<<grid, kBlock, 0, stream>>>(
          static_cast<const float*>(a), static_cast<const float*>(b), ref, n);
      break;
    case DType::kFp16:
      VectorAddReferenceKernel<<<grid, kBlock, 0, stream>>>(
          static_cast<const __half*>(a), static_cast<const __half*>(b), ref, n);
      break;
    case DType::kBf16:
      VectorAddReferenceKernel<<<grid, kBlock, 0, stream>>>(
          static_cast<const __nv_bfloat16*>(a), static_cast<const __nv_bfloat16*>(b), ref, n);
      break;
  }
  return cudaGetLastError();
}

cudaError_t LaunchAttentionReference(const AttentionShape& shape, DType dtype, const void* q,
                                     const void* k, const void* v, float* ref,
                                     cudaStream_t stream) {
  if (shape.head_dim < 1 || shape.head_dim > kMaxReferenceHeadDim || shape.seq_len < 1 ||
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
          static_cast<const float*>(q), static_cast<const float*>(k),
          static_cast<const float*>(v), ref, rows, shape.seq_len, d, shape.causal, scale);
      break;
    case DType::kFp16:
      AttentionReferenceKernel<<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const __half*>(q), static_cast<const __half*>(k),
          static_cast<const __half*>(v), ref, rows, shape.seq_len, d, shape.causal, scale);
      break;
    case DType::kBf16:
      AttentionReferenceKernel<<<grid, kWarps * 32, 0, stream>>>(
          static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k),
          static_cast<const __nv_bfloat16*>(v), ref, rows, shape.seq_len, d, shape.causal,
          scale);
      break;
  }
  return cudaGetLastError();
}

int ComparisonBlocks(int64_t n) {
  const int64_t blocks = Blocks(n < 1 ? 1 : n, kBlock);
  return int(blocks < kMaxComparisonBlocks ? blocks : kMaxComparisonBlocks);
}

cudaError_t LaunchCompare(DType dtype, const void* out, const float* ref, int64_t n,
                          double atol, double rtol, ComparisonPartial* partials,
                          cudaStream_t stream) {
  if (n < 1) return cudaErrorInvalidValue;
  const unsigned grid = unsigned(ComparisonBlocks(n));
  switch (dtype) {
    case DType::kFp32:
      CompareKernel<<<grid, kBlock, 0, stream>>>(static_cast<const float*>(out), ref, n, atol,
                                                  rtol, partials);
      break;
    case DType::kFp16:
      CompareKernel<<<grid, kBlock, 0, stream>>>(static_cast<const __half*>(out), ref, n, atol,
                                                  rtol, partials);
      break;
    case DType::kBf16:
      CompareKernel<<<grid, kBlock, 0, stream>>>(static_cast<const __nv_bfloat16*>(out), ref,
                                                  n, atol, rtol, partials);
      break;
  }
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
