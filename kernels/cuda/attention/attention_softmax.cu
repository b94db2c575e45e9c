// Naive attention, step 2 of 3: mask + softmax over each row of S, in place,
// as TinyGPT's softmax(S + mask) does (attention.h). What it keeps from a
// textbook softmax, and what it changes:
//   - S stays in the input dtype in HBM (what PyTorch eager stores); the
//     arithmetic is fp32 (max, exp, sum, scale), rounded once on store.
//   - Causal: key j > query i gets probability 0 and is neither read nor
//     counted (i = row % seq_len).
//   - One read and one write of S: a row is held in registers between the
//     two (16-byte vectors when the row length allows, else scalars), by a
//     warp for short rows and up to 1024 threads for long ones; rows too
//     long for that take a streaming kernel that reads twice (online max and
//     sum, then normalize).
// Tolerance: the naive variant's, fp32 2e-5 / fp16 and bf16 1e-2 relative L2
// (kernels/dtype.h); exp is ex2.approx (relative error about 2^-22).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda/attention/attention_ptx.cuh"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kPerThread = 8;  // vectors a thread holds in the cached kernel
constexpr int kStreamBlock = 1024;

template <typename T, int kVec>
struct alignas(sizeof(T) * kVec) Vec {
  T v[kVec];
};

__device__ __forceinline__ float WarpMax(float x) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(~0u, x, o));
  return x;
}
__device__ __forceinline__ float WarpSum(float x) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(~0u, x, o);
  return x;
}

__host__ __device__ constexpr int BlockThreads(int row_threads) {
  return row_threads < 128 ? 128 : row_threads;
}

// Rows of up to kRowThreads * kPerThread * kVec elements; kVec > 1 needs
// seq_len % kVec == 0 (every row then starts 16-byte aligned).
template <typename T, int kRowThreads, int kVec, bool kCausal>
__global__ void __launch_bounds__(BlockThreads(kRowThreads))
    SoftmaxCachedKernel(T* __restrict__ s, int64_t rows, int n) {
  constexpr int kBlock = BlockThreads(kRowThreads);
  constexpr int kRowsPerBlock = kBlock / kRowThreads;
  constexpr int kWarpsPerRow = kRowThreads / 32;
  __shared__ float partial_max[kBlock / 32];
  __shared__ float partial_sum[kBlock / 32];
  const int t = threadIdx.x % kRowThreads;
  const int row_in_block = threadIdx.x / kRowThreads;
  const int64_t row = int64_t(blockIdx.x) * kRowsPerBlock + row_in_block;
  const bool live = row < rows;
  T* p = s + (live ? row : 0) * int64_t(n);
  const int limit = !live ? 0 : kCausal ? min(n, int(row % n) + 1) : n;

  float x[kPerThread][kVec];
  float mx = -INFINITY;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int idx = (i * kRowThreads + t) * kVec;
    if (idx < limit) {
      const Vec<T, kVec> in = *reinterpret_cast<const Vec<T, kVec>*>(p + idx);
#pragma unroll
      for (int e = 0; e < kVec; ++e) x[i][e] = idx + e < limit ? ToFloat(in.v[e]) : -INFINITY;
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) x[i][e] = -INFINITY;
    }
#pragma unroll
    for (int e = 0; e < kVec; ++e) mx = fmaxf(mx, x[i][e]);
  }
  mx = WarpMax(mx);
  const int warp = threadIdx.x / 32, first_warp = row_in_block * kWarpsPerRow;
  if constexpr (kWarpsPerRow > 1) {
    if (threadIdx.x % 32 == 0) partial_max[warp] = mx;
    __syncthreads();
    mx = partial_max[first_warp];
#pragma unroll
    for (int w = 1; w < kWarpsPerRow; ++w) mx = fmaxf(mx, partial_max[first_warp + w]);
  }
  const float shift = live ? mx * kLog2e : 0.0f;
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i)
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      x[i][e] = ptx::Exp2(fmaf(x[i][e], kLog2e, -shift));
      sum += x[i][e];
    }
  sum = WarpSum(sum);
  if constexpr (kWarpsPerRow > 1) {
    if (threadIdx.x % 32 == 0) partial_sum[warp] = sum;
    __syncthreads();
    sum = partial_sum[first_warp];
#pragma unroll
    for (int w = 1; w < kWarpsPerRow; ++w) sum += partial_sum[first_warp + w];
  }
  if (!live) return;
  const float inv = 1.0f / sum;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const int idx = (i * kRowThreads + t) * kVec;
    if (idx < n) {
      Vec<T, kVec> out;
#pragma unroll
      for (int e = 0; e < kVec; ++e) out.v[e] = FromFloat<T>(x[i][e] * inv);
      *reinterpret_cast<Vec<T, kVec>*>(p + idx) = out;
    }
  }
}

// (max, sum of exp(x - max)) of two parts of a row, merged.
__device__ __forceinline__ void Merge(float& m, float& l, float m2, float l2) {
  const float mm = fmaxf(m, m2);
  if (mm == -INFINITY) return;
  l = l * ptx::Exp2((m - mm) * kLog2e) + l2 * ptx::Exp2((m2 - mm) * kLog2e);
  m = mm;
}

// Any row length: one block a row, S read twice.
template <typename T, bool kCausal>
__global__ void __launch_bounds__(kStreamBlock) SoftmaxStreamingKernel(T* __restrict__ s, int n) {
  __shared__ float part_m[kStreamBlock / 32], part_l[kStreamBlock / 32];
  const int64_t row = blockIdx.x;
  T* p = s + row * int64_t(n);
  const int limit = kCausal ? min(n, int(row % n) + 1) : n;
  float m = -INFINITY, l = 0;
  for (int j = threadIdx.x; j < limit; j += kStreamBlock) {
    const float x = ToFloat(p[j]);
    Merge(m, l, x, 1.0f);
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) {
    const float m2 = __shfl_xor_sync(~0u, m, o);
    const float l2 = __shfl_xor_sync(~0u, l, o);
    Merge(m, l, m2, l2);
  }
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
    part_m[warp] = m;
    part_l[warp] = l;
  }
  __syncthreads();
  m = part_m[0];
  l = part_l[0];
  for (int w = 1; w < kStreamBlock / 32; ++w) Merge(m, l, part_m[w], part_l[w]);
  const float inv = 1.0f / l, shift = m * kLog2e;
  for (int j = threadIdx.x; j < n; j += kStreamBlock) {
    const float prob = j < limit ? ptx::Exp2(fmaf(ToFloat(p[j]), kLog2e, -shift)) * inv : 0;
    p[j] = FromFloat<T>(prob);
  }
}

template <typename T, int kRowThreads, int kVec, bool kCausal>
cudaError_t LaunchCached(T* s, int64_t rows, int n, cudaStream_t stream) {
  constexpr int kRowsPerBlock = BlockThreads(kRowThreads) / kRowThreads;
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  if (blocks > int64_t(INT32_MAX)) return cudaErrorInvalidValue;
  SoftmaxCachedKernel<T, kRowThreads, kVec, kCausal>
      <<<unsigned(blocks), BlockThreads(kRowThreads), 0, stream>>>(s, rows, n);
  return cudaGetLastError();
}

// The fewest threads a row (in multiples of a warp, up to 1024) whose
// registers hold it; else the streaming kernel.
template <typename T, int kVec, bool kCausal>
cudaError_t LaunchForWidth(T* s, int64_t rows, int n, cudaStream_t stream) {
  constexpr int kPerWarp = 32 * kPerThread * kVec;
  if (n <= kPerWarp) return LaunchCached<T, 32, kVec, kCausal>(s, rows, n, stream);
  if (n <= 2 * kPerWarp) return LaunchCached<T, 64, kVec, kCausal>(s, rows, n, stream);
  if (n <= 4 * kPerWarp) return LaunchCached<T, 128, kVec, kCausal>(s, rows, n, stream);
  if (n <= 8 * kPerWarp) return LaunchCached<T, 256, kVec, kCausal>(s, rows, n, stream);
  if (n <= 16 * kPerWarp) return LaunchCached<T, 512, kVec, kCausal>(s, rows, n, stream);
  // 1024 threads get 64 registers each: room for 32 cached elements only.
  if constexpr (kPerThread * kVec <= 32)
    if (n <= 32 * kPerWarp) return LaunchCached<T, 1024, kVec, kCausal>(s, rows, n, stream);
  if (rows > int64_t(INT32_MAX)) return cudaErrorInvalidValue;
  SoftmaxStreamingKernel<T, kCausal><<<unsigned(rows), kStreamBlock, 0, stream>>>(s, n);
  return cudaGetLastError();
}

template <typename T, bool kCausal>
cudaError_t LaunchTyped(void* scores, int64_t rows, int n, cudaStream_t stream) {
  constexpr int kVec = 16 / sizeof(T);
  T* s = static_cast<T*>(scores);
  if (n % kVec == 0) return LaunchForWidth<T, kVec, kCausal>(s, rows, n, stream);
  return LaunchForWidth<T, 1, kCausal>(s, rows, n, stream);
}

template <typename T>
cudaError_t LaunchTyped(void* scores, const AttentionShape& shape, cudaStream_t stream) {
  const int64_t rows = shape.BatchHeads() * shape.seq_len;
  const int n = int(shape.seq_len);
  return shape.causal ? LaunchTyped<T, true>(scores, rows, n, stream)
                      : LaunchTyped<T, false>(scores, rows, n, stream);
}

}  // namespace

cudaError_t LaunchAttentionSoftmax(const AttentionShape& shape, DType dtype, void* scores,
                                   cudaStream_t stream) {
  if (shape.seq_len < 1 || shape.seq_len > INT32_MAX || shape.BatchHeads() < 1)
    return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp32:
      return LaunchTyped<float>(scores, shape, stream);
    case DType::kFp16:
      return LaunchTyped<__half>(scores, shape, stream);
    case DType::kBf16:
      return LaunchTyped<__nv_bfloat16>(scores, shape, stream);
    case DType::kFp8:  // naive widens fp8 to bf16 first (attention.h)
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
