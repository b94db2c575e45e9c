// The split-KV rule, workspace size and combine kernel (attention_split_kv.h).
// The combine: one thread per 4 columns of a row reads the row's `splits`
// lse values and partial O float4s, fp32 throughout, and stores 4 elements
// of the dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "kernels/cuda/attention_split_kv.h"
#include "kernels/cuda/attention_split_kv.cuh"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

template <typename T>
__global__ void SplitKvCombineKernel(const float* __restrict__ part_o,
                                     const float* __restrict__ part_lse,
                                     T* __restrict__ o, int64_t rows, int d,
                                     int splits) {
  const int chunks = d / 4;
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= rows * chunks) return;
  const int64_t row = i / chunks;
  const int col = int(i % chunks) * 4;
  float mx = -INFINITY;
  for (int s = 0; s < splits; ++s) mx = fmaxf(mx, part_lse[s * rows + row]);
  float acc[4] = {0, 0, 0, 0};
  float total = 0;
  for (int s = 0; s < splits; ++s) {
    const float lse = part_lse[s * rows + row];
    if (lse == -INFINITY) continue;
    const float w = exp2f(lse - mx);
    const float4 p = *reinterpret_cast<const float4*>(
        part_o + (s * rows + row) * d + col);
    total += w;
    acc[0] = fmaf(w, p.x, acc[0]);
    acc[1] = fmaf(w, p.y, acc[1]);
    acc[2] = fmaf(w, p.z, acc[2]);
    acc[3] = fmaf(w, p.w, acc[3]);
  }
  const float inv = total > 0 ? 1.0f / total : 0.0f;
  T* out = o + row * d + col;
#pragma unroll
  for (int e = 0; e < 4; ++e) out[e] = FromFloat<T>(acc[e] * inv);
}

template <typename T>
cudaError_t Combine(const AttentionShape& shape, int splits,
                    const void* workspace, void* o, cudaStream_t stream) {
  const int64_t rows = shape.BatchHeads() * shape.seq_len;
  const int d = int(shape.head_dim);
  SplitKvPartials part;
  if (!SplitKvPartialsIn(shape, splits, const_cast<void*>(workspace), &part))
    return cudaErrorInvalidValue;
  constexpr int kThreads = 256;
  const int64_t blocks = (rows * (d / 4) + kThreads - 1) / kThreads;
  if (blocks > int64_t(INT32_MAX)) return cudaErrorInvalidValue;
  SplitKvCombineKernel<T><<<unsigned(blocks), kThreads, 0, stream>>>(
      part.o, part.lse, static_cast<T*>(o), rows, d, splits);
  return cudaGetLastError();
}

}  // namespace

int SplitKvSplits(const AttentionShape& shape, int query_rows, int kv_tile,
                  int num_sms) {
  if (query_rows < 1) return 1;
  const int64_t q_blocks =
      shape.BatchHeads() * ((shape.seq_len + query_rows - 1) / query_rows);
  const int64_t busy = shape.causal ? (q_blocks + 1) / 2 : q_blocks;
  if (q_blocks <= 0 || kv_tile < 1 || num_sms < 1) return 1;
  const int64_t kv_tiles = (shape.seq_len + kv_tile - 1) / kv_tile;
  const int64_t most = std::min(kv_tiles, int64_t(kMaxKvSplits));
  if (2 * busy > num_sms) {
    // The last wave: the smallest of 2 to 4 splits whose waves, each 1/s of
    // the keys, take at most 3/4 of one pass's.
    if (shape.causal) return 1;
    const auto waves = [&](int64_t s) { return (q_blocks * s + num_sms - 1) / num_sms; };
    for (int64_t s = 2; s <= std::min<int64_t>(4, most); ++s)
      if (4 * waves(s) <= 3 * s * waves(1)) return int(s);
    return 1;
  }
  const int64_t want = (2 * int64_t(num_sms) + q_blocks - 1) / q_blocks;
  return int(std::max<int64_t>(1, std::min(want, most)));
}

int64_t SplitKvWorkspaceBytes(const AttentionShape& shape, int splits) {
  if (splits <= 1) return 0;
  return int64_t(splits) * shape.BatchHeads() * shape.seq_len *
         (shape.head_dim + 1) * int64_t(sizeof(float));
}

cudaError_t LaunchSplitKvCombine(const AttentionShape& shape, DType dtype,
                                 int splits, const void* workspace, void* o,
                                 cudaStream_t stream) {
  if (splits < 2 || workspace == nullptr || shape.head_dim % 4 != 0)
    return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp32: return Combine<float>(shape, splits, workspace, o, stream);
    case DType::kFp16: return Combine<__half>(shape, splits, workspace, o, stream);
    case DType::kBf16:
      return Combine<__nv_bfloat16>(shape, splits, workspace, o, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
