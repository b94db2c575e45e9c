// Fused attention, fp32 on CUDA cores (plain FMA, no TF32). What it changes
// over naive (attention.h):
//   - One kernel, S never in HBM: a block owns kBr query rows of one
//     (batch, head) and walks the keys in tiles of kBc = 64 with an online
//     softmax (running max and sum, O rescaled as tiles arrive, divided by
//     the sum once at the end).
//   - Q, K, V tiles in shared memory by cp.async (V's copy overlaps Q K^T;
//     the next K's copy overlaps softmax and P V); one tile of P goes through
//     shared memory between the two products.
//   - Register blocking: 256 threads as 16 x 16 (row group ty, key group
//     tx); a thread computes kBr / 16 query rows (ty + 16 i) x 4 keys of S
//     (keys tx + 16 j) and the same rows x d / 16 columns of O (float4 at
//     tx * 4 + 64 c), reading shared memory as float4: with kBr = 128, 12
//     loads per 128 FMAs in Q K^T and 16 per 256 in P V (d = 128). Q and K
//     rows are padded by 4 floats, so the float4 reads of 16 K rows hit
//     distinct banks; Q and P reads are broadcasts, and the two row groups
//     of a warp (adjacent rows) read distinct banks. P rows are padded by 16
//     floats, so adjacent rows' P stores and loads do not collide either.
//   - The 16 threads of a row are a half-warp, or (kSplit) lanes 0-7 and
//     16-23 (or 8-15 and 24-31) of a warp. The unroll depths and kSplit of
//     each case were picked by timing the alternatives on the H200.
//   - Two tilings (Fp32Config): kBr = 128, one block an SM; or kBr = 64 with
//     P written over the K tile (the next K is then copied after P V), small
//     enough for two blocks an SM.
//   - Any head_dim a multiple of 8 from 32 to 256: tiles for kD = 64, 128
//     and 256 (kRows64Aliased only), a smaller d padded up to the next (its
//     chunks past d are zero-filled on load and never stored).
//   - Any N: rows past N are zero-filled, their keys masked, their queries
//     not stored. Causal: tiles above the diagonal are never loaded.
//   - Split-KV (attention_split_kv.h): with splits > 1 a block walks only
//     its split's share of the key tiles and writes fp32 partials (O over
//     its own row sum, and the row's lse) for the combine kernel.
// Tolerance: fp32 2e-5 relative L2 (kernels/dtype.h); exp is ex2.approx
// (relative error about 2^-22), far inside it.
#include <cmath>

#include "kernels/cuda/attention_fused_mma.h"
#include "kernels/cuda/attention_ptx.cuh"
#include "kernels/cuda/attention_split_kv.cuh"
#include "kernels/cuda/attention_split_kv.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kBc = 64;
constexpr int kTN = kBc / 16;  // keys of a thread
constexpr int kPStride = kBc + 16;

// kBr query rows a block; kAlias: P is written over the K tile once Q K^T
// is done (the next K tile is then copied after P V instead of during it),
// which saves P's own buffer.
template <int kD, int kBr, bool kAlias>
struct Fp32Tiles {
  static constexpr int kStride = kD + 4;  // Q and K rows, padded
  static constexpr int kQFloats = kBr * kStride;
  static constexpr int kPFloats = kBr * kPStride;
  static constexpr int kKFloats = kAlias && kPFloats > kBc * kStride
                                      ? kPFloats
                                      : kBc * kStride;
  static constexpr int kVFloats = kBc * kD;
  static constexpr int kSmemBytes =
      4 * (kQFloats + kKFloats + kVFloats + (kAlias ? 0 : kPFloats));

  // Tile copies: a thread copies one 16-byte chunk (copy_c) of rows
  // copy_r0 + i * kCopyRows. `dst` = the thread's shared address of row
  // copy_r0 in a tile of row stride kStride (the tile's own offset, kTile
  // bytes, and the rows' offsets are immediates); `src` = the slice + copy_r0
  // * kD + copy_c * 4. Rows at or past `valid` become zeros (their copies
  // read nothing; they are given `safe`, an address inside the tensor).
  static constexpr int kChunks = kD / 4;
  static constexpr int kCopyRows = kThreads / kChunks;
  // The slice's rows are d <= kD floats apart; a chunk past d (`chunk_in`
  // false) becomes zeros like a row past `valid`.
  template <int kRows, int kTile, int kStrideFloats>
  static __device__ __forceinline__ void Load(uint32_t dst, const float* src,
                                              const float* safe, int r0,
                                              int valid, int d, bool chunk_in) {
    static_assert(kRows % kCopyRows == 0, "tile copy must divide evenly");
    ptx::StaticFor<0, kRows / kCopyRows>([&](auto i) {
      constexpr int kRow = decltype(i)::value * kCopyRows;
      const bool in = chunk_in && r0 + kRow < valid;
      ptx::CpAsync16<kTile + kRow * kStrideFloats * 4>(
          dst, in ? src + int64_t(kRow) * d : safe, in ? 16 : 0);
    });
  }
};

// Reductions over the 16 lanes that share a row: lane bits 0-2 and kHi
// (8 for a half-warp, 16 when a row's lanes are split across the halves).
template <int kHi>
__device__ __forceinline__ float RowMax(float x) {
  x = fmaxf(x, __shfl_xor_sync(~0u, x, kHi));
#pragma unroll
  for (int o = 4; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(~0u, x, o));
  return x;
}
template <int kHi>
__device__ __forceinline__ float RowSum(float x) {
  x += __shfl_xor_sync(~0u, x, kHi);
#pragma unroll
  for (int o = 4; o > 0; o /= 2) x += __shfl_xor_sync(~0u, x, o);
  return x;
}

// kUnrollQk, kUnrollPv: how far the two inner loops unroll, which bounds how
// many shared-memory loads the compiler can issue ahead of their FMAs.
// Blocks of 64 rows are sized (registers and, aliased, shared memory) for
// two blocks an SM.
template <int kD, int kBr, bool kAlias, bool kCausal, int kUnrollQk,
          int kUnrollPv, bool kSplit>
__global__ void __launch_bounds__(kThreads, kBr == 64 && kD <= 128 ? 2 : 1)
    FusedFp32Kernel(const float* __restrict__ q, const float* __restrict__ k,
                    const float* __restrict__ v, float* __restrict__ o, int n,
                    int d, int m_blocks, float scale_log2, SplitKvPartials part) {
  using Tiles = Fp32Tiles<kD, kBr, kAlias>;
  constexpr int kTM = kBr / 16;  // query rows of a thread
  constexpr int kOC = kD / 64;   // float4 columns of O a thread owns
  constexpr int kQTile = 0, kKTile = 4 * Tiles::kQFloats;
  constexpr int kVTile = kKTile + 4 * Tiles::kKFloats;
  extern __shared__ __align__(16) float smem_f[];
  const float* sq = smem_f;
  const float* sk = sq + Tiles::kQFloats;
  const float* sv = sk + Tiles::kKFloats;
  float* sp = kAlias ? smem_f + Tiles::kQFloats
                     : smem_f + Tiles::kQFloats + Tiles::kKFloats + Tiles::kVFloats;

  // kSplit: a half-warp holds 2 row groups x 8 key groups (lane bit 3 picks
  // the row group); otherwise 1 row group x 16 key groups.
  constexpr int kHi = kSplit ? 16 : 8;
  const int tid = threadIdx.x, lane = tid % 32;
  const int ty = kSplit ? tid / 32 * 2 + (lane >> 3) % 2 : tid / 16;
  const int tx = kSplit ? lane % 8 + (lane >> 4) * 8 : tid % 16;
  const int split = int(blockIdx.x % part.splits);
  const int64_t block = blockIdx.x / part.splits;
  const int64_t bh = block / m_blocks;
  int mb = int(block % m_blocks);
  if (kCausal) mb = m_blocks - 1 - mb;
  const int q0 = mb * kBr;
  const int64_t head = bh * int64_t(n) * d;
  const int copy_r0 = tid / Tiles::kChunks, copy_c = tid % Tiles::kChunks;
  const uint32_t smem_base = ptx::SharedAddress(smem_f);
  const uint32_t copy_padded = smem_base + 4 * (copy_r0 * Tiles::kStride + copy_c * 4);
  const uint32_t copy_dense = smem_base + 4 * (copy_r0 * kD + copy_c * 4);
  const int64_t copy_src = head + int64_t(copy_r0) * d + copy_c * 4;
  const bool copy_in = copy_c * 4 < d;  // chunks past d: zeros
  const float* k_src = k + copy_src;
  const float* v_src = v + copy_src;

  const int kv_end = kCausal ? min(n, q0 + kBr) : n;
  const KvRange range = SplitKvRange((kv_end + kBc - 1) / kBc, part.splits, split);

  Tiles::template Load<kBr, kQTile, Tiles::kStride>(
      copy_padded, q + copy_src + int64_t(q0) * d, q + head, copy_r0, n - q0, d,
      copy_in);
  Tiles::template Load<kBc, kKTile, Tiles::kStride>(
      copy_padded, k_src + int64_t(range.begin) * kBc * d, k + head, copy_r0,
      n - range.begin * kBc, d, copy_in);
  ptx::CpAsyncCommit();
  const int row0 = ty;  // query rows of this thread, in the block: row0 + 16 i

  float acc_o[kTM][kOC][4];
  float row_max[kTM], row_sum[kTM];
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
#pragma unroll
    for (int c = 0; c < kOC; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc_o[i][c][e] = 0;
    row_max[i] = -INFINITY;
    row_sum[i] = 0;
  }

  for (int j = range.begin; j < range.end; ++j) {
    const int kb = j * kBc;
    ptx::CpAsyncWait<0>();
    __syncthreads();  // K_j landed; P V_{j-1} done everywhere
    Tiles::template Load<kBc, kVTile, kD>(copy_dense, v_src + int64_t(kb) * d,
                                          v + head, copy_r0, n - kb, d, copy_in);
    ptx::CpAsyncCommit();

    float s[kTM][kTN];
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
      for (int c = 0; c < kTN; ++c) s[i][c] = 0;
#pragma unroll kUnrollQk
    for (int x = 0; x < kD; x += 4) {
      float4 kv[kTN];
#pragma unroll
      for (int c = 0; c < kTN; ++c)
        kv[c] = *reinterpret_cast<const float4*>(sk + (tx + 16 * c) * Tiles::kStride + x);
#pragma unroll
      for (int i = 0; i < kTM; ++i) {
        const float4 qv =
            *reinterpret_cast<const float4*>(sq + (row0 + 16 * i) * Tiles::kStride + x);
#pragma unroll
        for (int c = 0; c < kTN; ++c) {
          s[i][c] = fmaf(qv.x, kv[c].x, s[i][c]);
          s[i][c] = fmaf(qv.y, kv[c].y, s[i][c]);
          s[i][c] = fmaf(qv.z, kv[c].z, s[i][c]);
          s[i][c] = fmaf(qv.w, kv[c].w, s[i][c]);
        }
      }
    }
    if (kb + kBc > n || (kCausal && kb + kBc - 1 > q0 + row0)) {
#pragma unroll
      for (int i = 0; i < kTM; ++i) {
        const int row = q0 + row0 + 16 * i;
        const int end = (kCausal ? min(n, row + 1) : n) - kb - tx;  // keys kept
#pragma unroll
        for (int c = 0; c < kTN; ++c)
          if (16 * c >= end) s[i][c] = -INFINITY;
      }
    }
    if (kAlias) __syncthreads();  // K_j read by all before P replaces it
    // Online softmax; the 16 threads of a half-warp share rows.
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      float mx = s[i][0];
#pragma unroll
      for (int c = 1; c < kTN; ++c) mx = fmaxf(mx, s[i][c]);
      mx = RowMax<kHi>(mx);
      const float m_new = fmaxf(row_max[i], mx);
      const float shift = m_new == -INFINITY ? 0.0f : m_new * scale_log2;
      const float alpha = ptx::Exp2(row_max[i] * scale_log2 - shift);
      row_max[i] = m_new;
      float sum = 0;
#pragma unroll
      for (int c = 0; c < kTN; ++c) {
        const float p = ptx::Exp2(fmaf(s[i][c], scale_log2, -shift));
        sp[(row0 + 16 * i) * kPStride + tx + 16 * c] = p;
        sum += p;
      }
      row_sum[i] = row_sum[i] * alpha + sum;
#pragma unroll
      for (int c = 0; c < kOC; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc_o[i][c][e] *= alpha;
    }
    ptx::CpAsyncWait<0>();
    __syncthreads();  // V_j landed, P visible; K_j no longer read
    if (!kAlias && j + 1 < range.end)
      Tiles::template Load<kBc, kKTile, Tiles::kStride>(
          copy_padded, k_src + int64_t(kb + kBc) * d, k + head, copy_r0,
          n - kb - kBc, d, copy_in);
    if (!kAlias) ptx::CpAsyncCommit();

#pragma unroll kUnrollPv
    for (int x = 0; x < kBc; x += 4) {
      float4 vv[4][kOC];
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int c = 0; c < kOC; ++c)
          vv[u][c] = *reinterpret_cast<const float4*>(sv + (x + u) * kD + tx * 4 + 64 * c);
#pragma unroll
      for (int i = 0; i < kTM; ++i) {
        const float4 pv =
            *reinterpret_cast<const float4*>(sp + (row0 + 16 * i) * kPStride + x);
        const float p[4] = {pv.x, pv.y, pv.z, pv.w};
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
          for (int c = 0; c < kOC; ++c) {
            acc_o[i][c][0] = fmaf(p[u], vv[u][c].x, acc_o[i][c][0]);
            acc_o[i][c][1] = fmaf(p[u], vv[u][c].y, acc_o[i][c][1]);
            acc_o[i][c][2] = fmaf(p[u], vv[u][c].z, acc_o[i][c][2]);
            acc_o[i][c][3] = fmaf(p[u], vv[u][c].w, acc_o[i][c][3]);
          }
      }
    }
    if (kAlias) {
      __syncthreads();  // P read by all before K_{j+1} replaces it
      if (j + 1 < range.end)
        Tiles::template Load<kBc, kKTile, Tiles::kStride>(
            copy_padded, k_src + int64_t(kb + kBc) * d, k + head, copy_r0,
            n - kb - kBc, d, copy_in);
      ptx::CpAsyncCommit();
    }
  }

  ptx::CpAsyncWait<0>();  // an empty split's Q and K copies
  // O over the row sum, fp32, into o; with splits > 1 into this split's
  // partial instead (rows of a split: batch_heads * n), with the row's lse
  // beside it for the combine kernel.
  const bool partial = part.splits > 1;
  const int64_t rows = int64_t(gridDim.x / part.splits / m_blocks) * n;
  const int64_t first = split * rows + bh * int64_t(n);
  float* oh = partial ? part.o + first * d : o + head;
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const float total = RowSum<kHi>(row_sum[i]);
    const float inv = total > 0 ? 1.0f / total : 0.0f;
    const int row = q0 + row0 + 16 * i;
    if (row >= n) continue;
#pragma unroll
    for (int c = 0; c < kOC; ++c)
      if (tx * 4 + 64 * c < d)
        *reinterpret_cast<float4*>(oh + int64_t(row) * d + tx * 4 + 64 * c) =
            make_float4(acc_o[i][c][0] * inv, acc_o[i][c][1] * inv,
                        acc_o[i][c][2] * inv, acc_o[i][c][3] * inv);
    if (partial && tx == 0) part.lse[first + row] = SplitKvLse(row_max[i], total, scale_log2);
  }
}

template <int kD, int kBr, bool kAlias, bool kCausal, int kUnrollQk,
          int kUnrollPv, bool kSplit>
cudaError_t Launch(const AttentionShape& shape, const AttentionTensors& x,
                   int splits, cudaStream_t stream) {
  auto kernel =
      FusedFp32Kernel<kD, kBr, kAlias, kCausal, kUnrollQk, kUnrollPv, kSplit>;
  const int n = int(shape.seq_len);
  const int m_blocks = (n + kBr - 1) / kBr;  // kBr: the template's
  const int64_t blocks = shape.BatchHeads() * m_blocks * splits;
  if (blocks > int64_t(INT32_MAX)) return cudaErrorInvalidValue;
  SplitKvPartials part;
  if (!SplitKvPartialsIn(shape, splits, x.workspace, &part)) return cudaErrorInvalidValue;
  constexpr int kSmem = Fp32Tiles<kD, kBr, kAlias>::kSmemBytes;
  if (cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      e != cudaSuccess)
    return e;
  const float scale_log2 = SoftmaxScaleLog2(shape.head_dim);
  kernel<<<unsigned(blocks), kThreads, kSmem, stream>>>(
      static_cast<const float*>(x.q), static_cast<const float*>(x.k),
      static_cast<const float*>(x.v), static_cast<float*>(x.o), n,
      int(shape.head_dim), m_blocks,
      scale_log2, part);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess || splits == 1) return e;
  return LaunchSplitKvCombine(shape, DType::kFp32, splits, x.workspace, x.o, stream);
}

template <int kD, int kBr, bool kAlias, int kUnrollQk, int kUnrollPv>
cudaError_t LaunchCausal(const AttentionShape& shape, const AttentionTensors& x,
                         int splits, cudaStream_t stream) {
  return shape.causal
             ? Launch<kD, kBr, kAlias, true, kUnrollQk, kUnrollPv, false>(
                   shape, x, splits, stream)
             : Launch<kD, kBr, kAlias, false, kUnrollQk, kUnrollPv, false>(
                   shape, x, splits, stream);
}

template <int kD>
cudaError_t LaunchConfig(const AttentionShape& shape, const AttentionTensors& x,
                         Fp32Config config, int splits, cudaStream_t stream) {
  switch (config) {
    case Fp32Config::kRows128: {
      // Q K^T fully unrolled, except causal d = 128, where full unrolling ran
      // up to 14% slower at small N and the split lane map with 16 x 4 was
      // fastest.
      constexpr bool kCausalSplit = kD == 128;
      constexpr int kCausalQk = kCausalSplit ? 16 : 32;
      constexpr int kCausalPv = kCausalSplit ? 4 : 8;
      return shape.causal
                 ? Launch<kD, 128, false, true, kCausalQk, kCausalPv, kCausalSplit>(
                       shape, x, splits, stream)
                 : Launch<kD, 128, false, false, 32, 8, false>(shape, x, splits, stream);
    }
    case Fp32Config::kRows64Aliased:
      return LaunchCausal<kD, 64, true, 8, 4>(shape, x, splits, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

int Fp32KvTile() { return kBc; }

cudaError_t LaunchAttentionFusedFp32(const AttentionShape& shape,
                                     const AttentionTensors& tensors,
                                     Fp32Config config, int splits,
                                     cudaStream_t stream) {
  if (!FusedLaunchable(shape, splits)) return cudaErrorInvalidValue;
  switch (FusedPaddedHeadDim(shape.head_dim)) {
    case 64: return LaunchConfig<64>(shape, tensors, config, splits, stream);
    case 128: return LaunchConfig<128>(shape, tensors, config, splits, stream);
    // d = 256: 64 rows a block, P over K (shared memory for 128 rows would
    // not fit), one block an SM, for every config.
    case 256:
      return LaunchCausal<256, 64, true, 8, 4>(shape, tensors, splits, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
