// The split-KV rule, workspace size and combine kernel (attention_split_kv.h).
// The combine: one thread per 4 columns of a row reads the row's `splits`
// lse values and partial O float4s, fp32 throughout, and stores 4 elements
// of the dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <vector>

#include "kernels/cuda/attention/attention_split_kv.cuh"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

template <typename T>
__global__ void SplitKvCombineKernel(const float* __restrict__ part_o,
                                     const float* __restrict__ part_lse, T* __restrict__ o,
                                     int64_t rows, int d, int splits) {
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
    const float4 p = *reinterpret_cast<const float4*>(part_o + (s * rows + row) * d + col);
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
cudaError_t Combine(const AttentionShape& shape, int splits, const void* workspace, void* o,
                    cudaStream_t stream) {
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

// The modelled time of the grid with `splits` splits (SplitKvSplits):
// items heaviest first, each onto the slot that frees first.
int64_t SplitKvMakespan(const AttentionShape& shape, const SplitKvKernel& k, int64_t slots,
                        int64_t splits) {
  const int64_t n = shape.seq_len, m_blocks = (n + k.query_rows - 1) / k.query_rows;
  std::vector<int64_t> items;
  items.reserve(size_t(m_blocks * splits));
  for (int64_t m = 0; m < m_blocks; ++m) {
    const int64_t keys = shape.causal ? std::min(n, (m + 1) * k.query_rows) : n;
    const int64_t tiles = (keys + k.kv_tile - 1) / k.kv_tile;
    const int64_t per = (tiles + splits - 1) / splits;
    for (int64_t s = 0; s < splits; ++s) {
      const int64_t begin = std::min(tiles, s * per), end = std::min(tiles, begin + per);
      items.push_back((end - begin) * k.kv_tile + k.item_keys);
    }
  }
  std::sort(items.begin(), items.end(), std::greater<>());
  // Every head has the same items: each is taken batch * heads times.
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> free_at;
  for (int64_t i = 0; i < slots; ++i) free_at.push(0);
  int64_t makespan = 0;
  for (int64_t item : items)
    for (int64_t h = 0; h < shape.BatchHeads(); ++h) {
      const int64_t done = free_at.top() + item;
      free_at.pop();
      free_at.push(done);
      makespan = std::max(makespan, done);
    }
  return makespan;
}

}  // namespace

int SplitKvSplits(const AttentionShape& shape, const SplitKvKernel& kernel, int num_sms) {
  if (kernel.query_rows < 1 || kernel.kv_tile < 1 || kernel.blocks_per_sm < 1 || num_sms < 1 ||
      shape.seq_len < 1 || shape.BatchHeads() < 1)
    return 1;
  const int64_t q_blocks =
      shape.BatchHeads() * ((shape.seq_len + kernel.query_rows - 1) / kernel.query_rows);
  const int64_t slots = int64_t(num_sms) * kernel.blocks_per_sm;
  const int64_t most_items = kSplitKvRounds * slots;
  if (q_blocks > most_items) return 1;
  const int64_t kv_tiles = (shape.seq_len + kernel.kv_tile - 1) / kernel.kv_tile;
  const int64_t most = std::min(kv_tiles, int64_t(kMaxKvSplits));
  int64_t best = SplitKvMakespan(shape, kernel, slots, 1), best_splits = 1;
  for (int64_t s = 2; s <= most && q_blocks * s <= most_items; ++s) {
    const int64_t t = SplitKvMakespan(shape, kernel, slots, s) + kernel.combine_keys;
    if (t < best) best = t, best_splits = s;
  }
  return int(best_splits);
}

int64_t SplitKvWorkspaceBytes(const AttentionShape& shape, int splits) {
  if (splits <= 1) return 0;
  return int64_t(splits) * shape.BatchHeads() * shape.seq_len * (shape.head_dim + 1) *
         int64_t(sizeof(float));
}

cudaError_t LaunchSplitKvCombine(const AttentionShape& shape, DType dtype, int splits,
                                 const void* workspace, void* o, cudaStream_t stream) {
  if (splits < 2 || workspace == nullptr || shape.head_dim % 4 != 0) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp32:
      return Combine<float>(shape, splits, workspace, o, stream);
    case DType::kFp16:
      return Combine<__half>(shape, splits, workspace, o, stream);
    case DType::kBf16:
      return Combine<__nv_bfloat16>(shape, splits, workspace, o, stream);
    case DType::kFp8:  // no fused fp8 kernel
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
