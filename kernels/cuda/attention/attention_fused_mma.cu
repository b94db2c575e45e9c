// Fused attention on tensor cores by mma.sync (FlashAttention-2's forward
// structure): fp16 and bf16, and fp32 in 3xFP16. What it changes over naive
// (attention.h):
//   - One kernel. A block owns kBr query rows of one (batch, head) and
//     walks the key/value rows in tiles of kBc; S and P exist only as
//     registers of one tile, never in HBM: O's traffic is Q, K, V read and O
//     written (K and V once per query block, mostly from L2).
//   - Online softmax in fp32: a running row max and row sum, O rescaled by
//     exp(m_old - m_new) as tiles arrive, divided by the sum once at the end.
//   - Tensor cores, fp32 accumulators: mma.sync m16n8k16. Each warp owns
//     kRowTiles x 16 query rows; Q and K tiles come to registers by
//     ldmatrix, V by ldmatrix.trans, and P goes from the S accumulators to
//     the A operand of P V without leaving registers, rounded to the dtype
//     (as FlashAttention does).
//   - fp32 (FusedFp32Kernel) in 3xFP16: each fp32 element x is held as two
//     fp16 pieces, h0 = x rounded to fp16 and h1 = the rest rounded to fp16
//     (ptx::SplitHalves), and a b as h0_a h0_b + h0_a h1_b + h1_a h0_b, three
//     fp16 products at twice tf32's rate. Q is split once a block, K and V
//     once a tile as they land, P once a warp; the small products are summed
//     apart from the big ones, and P V a group of keys at a time, so that no
//     chain of truncating tensor-core sums is long. On the H200 it took 0.51
//     to 0.76 of the time of the 3xTF32 kernel (m16n8k8 tf32, the same
//     structure) it replaced, over d 64 to 256, causal or not (one call,
//     median of three): B 4, H 8, N 4096, d 256 5.82 ms against 10.83,
//     causal 3.10 against 6.06; B 4, H 32, N 4096, d 64 5.03 against 8.46.
//     Each tensor is scaled by a power of two into fp16's range first
//     (RangeShift: any finite input holds), from the caller's bound on the
//     inputs or a range pass; with the bound, on an H100 against the
//     unscaled kernel (one call, median of three, six shapes from N = 512
//     to 4096 and d = 64 to 256): 1.015-1.041x causal, 0.982-1.031x not.
//   - Memory: cp.async 16-byte copies into XOR-swizzled shared tiles (chunk c
//     of row r at c ^ (r % 8): ldmatrix and the copies are bank-conflict
//     free). V's tile copy overlaps Q K^T, the next K tile's copy overlaps
//     the softmax and P V.
//   - Any head_dim a multiple of 8 from 32 to 256: tiles for kD = 64, 128
//     and 256, a smaller d padded up to the next (its chunks past d are
//     zero-filled on load and never stored; the scale is 1 / sqrt(d)).
//   - Any N: rows past N are zero-filled on load, their keys masked to -inf
//     and their queries never stored. Causal: key tiles wholly above the
//     diagonal are never loaded, a warp whose rows all precede a tile skips
//     it, and query blocks run heaviest first.
//   - Split-KV (attention_split_kv.h): with splits > 1 a block walks only
//     its split's share of the key tiles and writes fp32 partials (O over
//     its own row sum, and the row's lse) for the combine kernel.
// Tolerances: kernels/attention/tolerances.h (fp32 outputs of 3xFP16
// measured at a relative L2 error of 1.7e-8 to 5.0e-7 on the H200, well
// inside fp32's bound).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>
#include <cmath>
#include <cstring>

#include "kernels/cuda/attention/attention_fp32_range.h"
#include "kernels/cuda/attention/attention_fused_mma.h"
#include "kernels/cuda/attention/attention_fused_wgmma.h"
#include "kernels/cuda/attention/attention_ptx.cuh"
#include "kernels/cuda/attention/attention_split_kv.cuh"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

// T: __half or __nv_bfloat16 (the 16-bit kernel's tiles and the fp32
// kernel's planes), or float (the fp32 kernel's staging tile: its copies,
// Offset and byte sizes).
template <typename T, int kD, int kBc, int kWarps, int kRowTiles>
struct MmaTiles {
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kWarpRows = 16 * kRowTiles;
  static constexpr int kBr = kWarpRows * kWarps;
  static constexpr int kElems = 16 / int(sizeof(T));  // elements of a chunk
  static constexpr int kChunks = kD / kElems;         // 16-byte chunks of a row
  static constexpr int kRowBytes = kD * int(sizeof(T));
  static constexpr int kQBytes = kBr * kRowBytes;
  static constexpr int kKVBytes = kBc * kRowBytes;
  // Rows one pass of the block's tile copy covers. The swizzle repeats every
  // 8 rows, so the rows a thread copies (r0 + i kCopyRows) take kDstVariants
  // swizzles: 1 when kCopyRows is a multiple of 8 (16-bit tiles), up to 4
  // for wide fp32 rows.
  static constexpr int kCopyRows = kThreads / kChunks;
  static constexpr int kDstVariants = kCopyRows % 8 == 0 ? 1 : 8 / kCopyRows;
  static_assert(kThreads % kChunks == 0 && (kCopyRows % 8 == 0 || 8 % kCopyRows == 0),
                "copy shape");
  static_assert(kBr % kCopyRows == 0 && kBc % kCopyRows == 0, "copy shape");

  // Byte offset of 16-byte chunk c of row r in a swizzled tile.
  static __device__ __forceinline__ uint32_t Offset(int r, int c) {
    return uint32_t(r * kRowBytes + ((c ^ (r & 7)) << 4));
  }

  // The shared addresses a thread copies its chunk c of rows r0 + i
  // kCopyRows to, less the rows' offsets: dst[i % kDstVariants] + i
  // kCopyRows kRowBytes is Offset(r0 + i kCopyRows, c) from `base`.
  using CopyDst = uint32_t[kDstVariants];
  static __device__ __forceinline__ void MakeCopyDst(CopyDst& dst, uint32_t base, int r0, int c) {
#pragma unroll
    for (int v = 0; v < kDstVariants; ++v)
      dst[v] = base + uint32_t(r0 * kRowBytes + ((c ^ ((r0 + v * kCopyRows) & 7)) << 4));
  }

  // A thread's share of copying rows [0, kRows) of a [*, d] slice (d <=
  // kD) into the tile at shared byte kTile: rows r0 + i * kCopyRows of its
  // chunk, `dst` from MakeCopyDst, `src` = the slice + r0 * d + chunk *
  // kElems. Rows at or past `valid`, and a chunk past d (`chunk_in` false),
  // become zeros (their copies read nothing; they are given `safe`, an
  // address inside the tensor).
  template <int kRows, int kTile>
  static __device__ __forceinline__ void Load(const CopyDst& dst, const T* src, const T* safe,
                                              int r0, int valid, int d, bool chunk_in) {
    ptx::StaticFor<0, kRows / kCopyRows>([&](auto i) {
      constexpr int kRow = decltype(i)::value * kCopyRows;
      const bool in = chunk_in && r0 + kRow < valid;
      ptx::CpAsync16<kTile + kRow * kRowBytes>(dst[decltype(i)::value % kDstVariants],
                                               in ? src + int64_t(kRow) * d : safe, in ? 16 : 0);
    });
  }
};

// O += P V_j, 16-bit. P in the dtype as the A operand: the accumulators of
// S n-tiles 2ks and 2ks + 1 are exactly A's fragment of keys 16ks...16ks +
// 15 (rounded to the dtype, as FlashAttention does); V's B fragments by
// ldmatrix.trans at v_addr (the kernel's ldmatrix addresses).
template <typename T, int kRowTiles, int kST, int kDT, int kRB>
__device__ __forceinline__ void AccumulatePv16(float (&acc_o)[kRowTiles][kDT][4],
                                               const float (&acc_s)[kRowTiles][kST][4],
                                               const uint32_t (&v_addr)[4]) {
  uint32_t pa[kRowTiles][kST / 2][4];
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int ks = 0; ks < kST / 2; ++ks) {
      pa[mt][ks][0] = ptx::PackPair<T>(acc_s[mt][2 * ks][0], acc_s[mt][2 * ks][1]);
      pa[mt][ks][1] = ptx::PackPair<T>(acc_s[mt][2 * ks][2], acc_s[mt][2 * ks][3]);
      pa[mt][ks][2] = ptx::PackPair<T>(acc_s[mt][2 * ks + 1][0], acc_s[mt][2 * ks + 1][1]);
      pa[mt][ks][3] = ptx::PackPair<T>(acc_s[mt][2 * ks + 1][2], acc_s[mt][2 * ks + 1][3]);
    }
  ptx::StaticFor<0, kST / 2>([&](auto ks_c) {
    constexpr int ks = decltype(ks_c)::value;
    ptx::StaticFor<0, kDT / 2>([&](auto dp_c) {
      constexpr int dp = decltype(dp_c)::value;
      uint32_t b[4];
      ptx::LdMatrixX4Trans<ks * 16 * kRB + (dp / 4) * 128>(b, v_addr[dp % 4]);
#pragma unroll
      for (int mt = 0; mt < kRowTiles; ++mt) {
        ptx::Mma16816<T>(acc_o[mt][2 * dp], pa[mt][ks], b[0], b[1]);
        ptx::Mma16816<T>(acc_o[mt][2 * dp + 1], pa[mt][ks], b[2], b[3]);
      }
    });
  });
}

// ---- steps both kernels share ----------------------------------------------
// A thread holds rows g and g + 8 (h = 0, 1) of each of its warp's row tiles
// mt; element (nt, 2h + e) of a row tile's S is key kb + 8 nt + 2t + e, and
// O's n-tile dn holds columns 8 dn + 2t and + 1 the same way.

// Keys past N, and (causal) keys after the query, to -inf: a row keeps
// keys below `end`. Only tiles that reach past N or the warp's first row
// have any.
template <bool kCausal, int kRowTiles, int kST>
__device__ __forceinline__ void MaskScores(float (&acc_s)[kRowTiles][kST][4], int kb, int n,
                                           int warp_q0, int g, int t) {
  if (kb + 8 * kST <= n && !(kCausal && kb + 8 * kST - 1 > warp_q0)) return;
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = warp_q0 + mt * 16 + g + 8 * h;
      const int end = (kCausal ? min(n, row + 1) : n) - kb - 2 * t;
#pragma unroll
      for (int nt = 0; nt < kST; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          if (nt * 8 + e >= end) acc_s[mt][nt][2 * h + e] = -INFINITY;
    }
}

// One tile of the online softmax in fp32: S becomes P = exp(S - the new row
// max) (scale folded into exp2), the row sums and O are rescaled by
// exp(old max - new max).
template <int kRowTiles, int kST, int kDT>
__device__ __forceinline__ void SoftmaxStep(float (&acc_s)[kRowTiles][kST][4],
                                            float (&acc_o)[kRowTiles][kDT][4],
                                            float (&row_max)[kRowTiles][2],
                                            float (&row_sum)[kRowTiles][2], float scale_log2) {
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < kST; ++nt)
        mx = fmaxf(mx, fmaxf(acc_s[mt][nt][2 * h], acc_s[mt][nt][2 * h + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 2));
      const float m_new = fmaxf(row_max[mt][h], mx);
      const float shift = m_new == -INFINITY ? 0.0f : m_new * scale_log2;
      const float alpha = ptx::Exp2(row_max[mt][h] * scale_log2 - shift);
      row_max[mt][h] = m_new;
      float sum = 0;
#pragma unroll
      for (int nt = 0; nt < kST; ++nt)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float p = ptx::Exp2(fmaf(acc_s[mt][nt][2 * h + e], scale_log2, -shift));
          acc_s[mt][nt][2 * h + e] = p;
          sum += p;
        }
      row_sum[mt][h] = row_sum[mt][h] * alpha + sum;
#pragma unroll
      for (int dn = 0; dn < kDT; ++dn) {
        acc_o[mt][dn][2 * h] *= alpha;
        acc_o[mt][dn][2 * h + 1] *= alpha;
      }
    }
}

// A row's sum over its quad of threads, and 1 / it (0 for a row with no
// key).
__device__ __forceinline__ float RowTotal(float partial) {
  partial += __shfl_xor_sync(~0u, partial, 1);
  return partial + __shfl_xor_sync(~0u, partial, 2);
}
__device__ __forceinline__ float InverseOf(float total) { return total > 0 ? 1.0f / total : 0.0f; }

// Split-KV partials (splits > 1): O over this split's row sum (times
// o_factor, a power of two) and the row's lse, fp32, for the combine
// kernel; rows at or past N are not written.
template <int kRowTiles, int kDT>
__device__ __forceinline__ void StorePartials(const float (&acc_o)[kRowTiles][kDT][4],
                                              const float (&row_max)[kRowTiles][2],
                                              const float (&row_sum)[kRowTiles][2],
                                              const SplitKvPartials& part, int split, int64_t bh,
                                              int m_blocks, int n, int d, int warp_q0,
                                              float scale_log2, float o_factor = 1.0f) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t rows = int64_t(gridDim.x / part.splits / m_blocks) * n;
  const int64_t first = split * rows + bh * int64_t(n);
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float total = RowTotal(row_sum[mt][h]), inv = InverseOf(total);
      const int r = warp_q0 + mt * 16 + g + 8 * h;
      if (r >= n) continue;
      float* po = part.o + (first + r) * d + 2 * t;
#pragma unroll
      for (int dn = 0; dn < kDT; ++dn)
        if (dn * 8 < d)
          *reinterpret_cast<float2*>(po + dn * 8) = make_float2(
              acc_o[mt][dn][2 * h] * inv * o_factor, acc_o[mt][dn][2 * h + 1] * inv * o_factor);
      if (t == 0) part.lse[first + r] = SplitKvLse(row_max[mt][h], total, scale_log2);
    }
}

// O / row sum into the staging rows: stage(r, dn, lo, hi) writes columns
// 8 dn + 2t and + 1 of the warp's row r (within the block).
template <int kRowTiles, int kDT, typename Stage>
__device__ __forceinline__ void StageRows(const float (&acc_o)[kRowTiles][kDT][4],
                                          const float (&row_sum)[kRowTiles][2], int warp_row0,
                                          Stage&& stage) {
  const int lane = threadIdx.x % 32, g = lane / 4;
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float inv = InverseOf(RowTotal(row_sum[mt][h]));
      const int r = warp_row0 + mt * 16 + g + 8 * h;
#pragma unroll
      for (int dn = 0; dn < kDT; ++dn)
        stage(r, dn, acc_o[mt][dn][2 * h] * inv, acc_o[mt][dn][2 * h + 1] * inv);
    }
}

// The warp's rows of O, staged in shared memory as Tiles' swizzled rows at
// `staged`, to global memory by 16-byte coalesced stores: rows below N,
// chunks inside d.
template <typename Tiles, typename T>
__device__ __forceinline__ void StoreRows(const unsigned char* staged, T* oh, int q0, int warp_row0,
                                          int n, int d) {
#pragma unroll
  for (int i = threadIdx.x % 32; i < Tiles::kWarpRows * Tiles::kChunks; i += 32) {
    const int r = warp_row0 + i / Tiles::kChunks, c = i % Tiles::kChunks;
    if (q0 + r < n && c * Tiles::kElems < d)
      *reinterpret_cast<uint4*>(oh + int64_t(q0 + r) * d + c * Tiles::kElems) =
          *reinterpret_cast<const uint4*>(staged + Tiles::Offset(r, c));
  }
}

// The block's place in the grid: blockIdx.x is (batch-head, query block,
// split) with the split fastest; causal query blocks run longest first.
struct BlockPlace {
  int split;
  int64_t bh;
  int q0;
};
template <bool kCausal>
__device__ __forceinline__ BlockPlace PlaceOf(int splits, int m_blocks, int block_rows) {
  const int64_t block = blockIdx.x / splits;
  int mb = int(block % m_blocks);
  if (kCausal) mb = m_blocks - 1 - mb;  // the longest rows first
  return {int(blockIdx.x % splits), block / m_blocks, mb * block_rows};
}

// This thread's slot in Tiles' copies of a head's rows (the head's first
// element at `head`): rows r0 + i * kCopyRows, chunk c; `src` is the
// element offset of its first, and a chunk past d (`in` false) reads
// nothing and lands as zeros.
template <typename Tiles>
struct CopySlot {
  int r0, c;
  typename Tiles::CopyDst dst;
  int64_t src;
  bool in;
};
template <typename Tiles>
__device__ __forceinline__ CopySlot<Tiles> SlotOf(uint32_t base, int64_t head, int d) {
  CopySlot<Tiles> x;
  x.r0 = threadIdx.x / Tiles::kChunks;
  x.c = threadIdx.x % Tiles::kChunks;
  Tiles::MakeCopyDst(x.dst, base, x.r0, x.c);
  x.src = head + int64_t(x.r0) * d + x.c * Tiles::kElems;
  x.in = x.c * Tiles::kElems < d;
  return x;
}

// ldmatrix addresses of a warp's Q rows and of K and V rows in 16-bit tiles
// of kRB-byte rows (at byte offsets q_tile, k_tile, v_tile from `base`).
// Every row a lane addresses is = lane (mod 8), so chunk 8a + b of it sits
// at 8a + (b ^ lane % 8): a lane needs one register per b / 2 and operand
// order, the rest are immediates.
//   A order (Q; V with .trans): row lane % 8 + 8 * (lane / 8 % 2), chunk
//     2 * step + lane / 16.  B order (K): row lane % 8 + 8 * (lane / 16),
//     chunk 2 * step + lane / 8 % 2.
struct LdMatrixAddresses {
  uint32_t q[4], k[4], v[4];
};
template <int kRB>
__device__ __forceinline__ LdMatrixAddresses AddressesOf(uint32_t base, int q_tile, int k_tile,
                                                         int v_tile, int warp_row0) {
  const int lane = threadIdx.x % 32, s8 = lane % 8;
  const int a_row = s8 + ((lane / 8) & 1) * 8, a_chunk = lane / 16;
  const int b_row = s8 + (lane / 16) * 8, b_chunk = (lane / 8) & 1;
  LdMatrixAddresses x;
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const uint32_t sw_a = uint32_t(((2 * b + a_chunk) ^ s8) << 4);
    const uint32_t sw_b = uint32_t(((2 * b + b_chunk) ^ s8) << 4);
    x.q[b] = base + q_tile + (warp_row0 + a_row) * kRB + sw_a;
    x.k[b] = base + k_tile + b_row * kRB + sw_b;
    x.v[b] = base + v_tile + a_row * kRB + sw_a;
  }
  return x;
}

template <int kRowTiles, int kDT>
__device__ __forceinline__ void ClearState(float (&acc_o)[kRowTiles][kDT][4],
                                           float (&row_max)[kRowTiles][2],
                                           float (&row_sum)[kRowTiles][2]) {
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt) {
#pragma unroll
    for (int dn = 0; dn < kDT; ++dn)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc_o[mt][dn][e] = 0;
    row_max[mt][0] = row_max[mt][1] = -INFINITY;
    row_sum[mt][0] = row_sum[mt][1] = 0;
  }
}

// ---- fp16/bf16 ---------------------------------------------------------------

// kExact: head_dim is kD, so every row stride is an immediate; otherwise
// head_dim_arg < kD is the tensors' row length (padded on chip).
template <typename T, int kD, int kBc, int kWarps, int kRowTiles, bool kCausal, bool kExact>
__global__ void __launch_bounds__(32 * kWarps)
    FusedMmaKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                   T* __restrict__ o, int n, int head_dim_arg, int m_blocks, float scale_log2,
                   SplitKvPartials part) {
  const int d = kExact ? kD : head_dim_arg;
  using Tiles = MmaTiles<T, kD, kBc, kWarps, kRowTiles>;
  constexpr int kBr = Tiles::kBr, kWarpRows = Tiles::kWarpRows;
  constexpr int kRB = Tiles::kRowBytes;
  constexpr int kQTile = 0, kKTile = Tiles::kQBytes;
  constexpr int kVTile = Tiles::kQBytes + Tiles::kKVBytes;
  constexpr int kDT = kD / 8;   // n-tiles of O
  constexpr int kST = kBc / 8;  // n-tiles of S
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t base = ptx::SharedAddress(smem);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const BlockPlace place = PlaceOf<kCausal>(part.splits, m_blocks, kBr);
  const int q0 = place.q0;
  const int64_t head = place.bh * int64_t(n) * d;

  const CopySlot<Tiles> slot = SlotOf<Tiles>(base, head, d);
  const T* k_src = k + slot.src;
  const T* v_src = v + slot.src;

  const int kv_end = kCausal ? min(n, q0 + kBr) : n;
  const KvRange range = SplitKvRange((kv_end + kBc - 1) / kBc, part.splits, place.split);

  Tiles::template Load<kBr, kQTile>(slot.dst, q + slot.src + int64_t(q0) * d, q + head, slot.r0,
                                    n - q0, d, slot.in);
  Tiles::template Load<kBc, kKTile>(slot.dst, k_src + int64_t(range.begin) * kBc * d, k + head,
                                    slot.r0, n - range.begin * kBc, d, slot.in);
  ptx::CpAsyncCommit();
  const int warp_row0 = warp * kWarpRows;  // within the block
  const int warp_q0 = q0 + warp_row0;      // within the sequence
  const int g = lane / 4, t = lane % 4;
  const LdMatrixAddresses addr = AddressesOf<kRB>(base, kQTile, kKTile, kVTile, warp_row0);

  float acc_o[kRowTiles][kDT][4];
  float row_max[kRowTiles][2], row_sum[kRowTiles][2];
  ClearState(acc_o, row_max, row_sum);

  for (int j = range.begin; j < range.end; ++j) {
    const int kb = j * kBc;
    ptx::CpAsyncWait<0>();
    __syncthreads();  // K_j landed; every warp is done with V_{j-1}
    Tiles::template Load<kBc, kVTile>(slot.dst, v_src + int64_t(kb) * d, v + head, slot.r0, n - kb,
                                      d, slot.in);
    ptx::CpAsyncCommit();
    const bool active = !kCausal || kb <= warp_q0 + kWarpRows - 1;

    float acc_s[kRowTiles][kST][4];
    if (active) {
#pragma unroll
      for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < kST; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc_s[mt][nt][e] = 0;
      // S = Q K_j^T.
      ptx::StaticFor<0, kD / 16>([&](auto ks_c) {  // k-steps of 16
        constexpr int ks = decltype(ks_c)::value;
        constexpr int kChunkImm = (ks / 4) * 128;
        uint32_t a[kRowTiles][4];
        ptx::StaticFor<0, kRowTiles>([&](auto mt_c) {
          constexpr int mt = decltype(mt_c)::value;
          ptx::LdMatrixX4<mt * 16 * kRB + kChunkImm>(a[mt], addr.q[ks % 4]);
        });
        ptx::StaticFor<0, kBc / 16>([&](auto np_c) {
          constexpr int np = decltype(np_c)::value;
          uint32_t b[4];
          ptx::LdMatrixX4<np * 16 * kRB + kChunkImm>(b, addr.k[ks % 4]);
#pragma unroll
          for (int mt = 0; mt < kRowTiles; ++mt) {
            ptx::Mma16816<T>(acc_s[mt][2 * np], a[mt], b[0], b[1]);
            ptx::Mma16816<T>(acc_s[mt][2 * np + 1], a[mt], b[2], b[3]);
          }
        });
      });
      MaskScores<kCausal>(acc_s, kb, n, warp_q0, g, t);
    }
    ptx::CpAsyncWait<0>();
    __syncthreads();  // V_j landed; every warp is done with K_j
    if (j + 1 < range.end)
      Tiles::template Load<kBc, kKTile>(slot.dst, k_src + int64_t(kb + kBc) * d, k + head, slot.r0,
                                        n - kb - kBc, d, slot.in);
    ptx::CpAsyncCommit();
    if (!active) continue;
    SoftmaxStep(acc_s, acc_o, row_max, row_sum, scale_log2);
    AccumulatePv16<T, kRowTiles, kST, kDT, kRB>(acc_o, acc_s, addr.v);
  }

  ptx::CpAsyncWait<0>();  // an empty split's Q and K copies
  if (part.splits > 1) {
    StorePartials(acc_o, row_max, row_sum, part, place.split, place.bh, m_blocks, n, d, warp_q0,
                  scale_log2);
    return;
  }
  // O / row sum, staged through this warp's own rows of the Q tile (no other
  // warp reads them), a 4-byte pair of the dtype a column pair, then stored.
  StageRows(acc_o, row_sum, warp_row0, [&](int r, int dn, float lo, float hi) {
    *reinterpret_cast<uint32_t*>(smem + kQTile + Tiles::Offset(r, dn) + 4 * t) =
        ptx::PackPair<T>(lo, hi);
  });
  __syncwarp();
  StoreRows<Tiles>(smem + kQTile, o + head, q0, warp_row0, n, d);
}

// ---- fp32 in 3xFP16 -------------------------------------------------------

// 2^e for e in [-126, 127].
__device__ __forceinline__ float Pow2(int e) { return __int_as_float((127 + e) << 23); }

// The exponent that brings a tensor whose largest magnitude has the float
// bits `amax` (attention_fp32_range.h) into [2^14, 2^15): fp16's top
// binade but one, so no piece rounds past 65504, and the most of the
// tensor above fp16's normal range (2^-14), where SplitHalves holds an
// element to 2^-22 of itself. 0 for an all-zero tensor; at most 126 (a
// tensor below 2^-112 is scaled by 2^126 only: its pieces' absolute error,
// 2^-25 scaled back, is below fp32's smallest subnormal).
__device__ __forceinline__ int RangeShift(uint32_t amax) {
  return amax == 0 ? 0 : min(141 - int(amax >> 23), 126);
}

// Shared memory of the fp32 kernel: Q's planes (h0 then h1, kBr rows), K's
// and V's (kBc rows each), all 16-bit rows of kD halves swizzled as
// MmaTiles<__half>'s; then one staging tile of kBc fp32 rows (MmaTiles<
// float>'s) that K and V tiles land in by turns before they are split.
template <int kD, int kBc, int kWarps, int kRowTiles>
struct Fp32Tiles {
  using Planes = MmaTiles<__half, kD, kBc, kWarps, kRowTiles>;
  using Stage = MmaTiles<float, kD, kBc, kWarps, kRowTiles>;
  static constexpr int kRB = Planes::kRowBytes;
  static constexpr int kQPlane = Planes::kQBytes;
  static constexpr int kKVPlane = Planes::kKVBytes;
  static constexpr int kQ = 0, kK = 2 * kQPlane, kV = kK + 2 * kKVPlane;
  static constexpr int kStage = kV + 2 * kKVPlane;
  static constexpr int kSmemBytes = kStage + Stage::kKVBytes;
  static_assert(2 * kQPlane == Stage::kQBytes, "O is staged in fp32 over Q's planes");
  static_assert(kBc % 32 == 0, "P V takes keys 32 at a time");
};

// S n-tiles kNt and kNt + 1 += Q K^T over one k-step of 16 in 3xFP16, for
// every row tile: a0, a1 Q's h0 and h1 fragments, b0, b1 K's (ldmatrix x4:
// n-tile kNt, then kNt + 1). The small products (h1 h0, h0 h1) go to
// acc_small, so that the big products' chain is d / 16 mmas long (the
// tensor cores truncate as they accumulate); term by term, the big
// product between the small ones, so that back-to-back products go to
// different accumulators.
template <int kNt, int kRowTiles, int kST>
__device__ __forceinline__ void Scores3xFp16(float (&acc_s)[kRowTiles][kST][4],
                                             float (&acc_small)[kRowTiles][kST][4],
                                             const uint32_t (&a0)[kRowTiles][4],
                                             const uint32_t (&a1)[kRowTiles][4],
                                             const uint32_t (&b0)[4], const uint32_t (&b1)[4]) {
#pragma unroll
  for (int term = 0; term < 3; ++term)
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (term == 0)
          ptx::Mma16816<__half>(acc_small[mt][kNt + h], a1[mt], b0[2 * h], b0[2 * h + 1]);
        else if (term == 1)
          ptx::Mma16816<__half>(acc_s[mt][kNt + h], a0[mt], b0[2 * h], b0[2 * h + 1]);
        else
          ptx::Mma16816<__half>(acc_small[mt][kNt + h], a0[mt], b1[2 * h], b1[2 * h + 1]);
      }
}

// O += P V_j in 3xFP16. P's pieces as the 16-bit kernel's P (the S
// accumulators of n-tiles 2ks and 2ks + 1 are A's fragment of keys 16ks..
// 16ks + 15); V's h0 and h1 fragments by ldmatrix.trans, h1 kVPlane bytes
// after h0. Keys go in groups of 32: a group's P is split once, and each
// n-tile of O sums the group's three products in its own accumulator,
// added to O in fp32, so no tensor-core chain is longer than 6 mmas.
template <int kRowTiles, int kST, int kDT, int kRB, int kVPlane>
__device__ __forceinline__ void AccumulatePv3xFp16(float (&acc_o)[kRowTiles][kDT][4],
                                                   const float (&acc_s)[kRowTiles][kST][4],
                                                   const uint32_t (&v_addr)[4]) {
  constexpr int kSteps = kST / 2;  // k-steps of 16 keys
  constexpr int kGroup = 2;
  static_assert(kSteps % kGroup == 0, "key tiles of whole groups");
  constexpr int kDn = 4;  // O's n-tiles at a time: two ldmatrix.trans of each plane
  ptx::StaticFor<0, kSteps / kGroup>([&](auto grp_c) {
    constexpr int k0 = decltype(grp_c)::value * kGroup;
    uint32_t p0[kRowTiles][kGroup][4], p1[kRowTiles][kGroup][4];
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
      for (int s = 0; s < kGroup; ++s)
#pragma unroll
        for (int x = 0; x < 4; ++x) {
          // Register x: n-tile 2 (k0 + s) + x / 2, elements 2 (x % 2), + 1.
          const float(&c)[4] = acc_s[mt][2 * (k0 + s) + x / 2];
          ptx::SplitHalves(c[2 * (x % 2)], c[2 * (x % 2) + 1], p0[mt][s][x], p1[mt][s][x]);
        }
    ptx::StaticFor<0, kDT / kDn>([&](auto dq_c) {
      constexpr int dn0 = decltype(dq_c)::value * kDn;
      float part[kRowTiles][kDn][4] = {};
      ptx::StaticFor<0, kGroup>([&](auto s_c) {
        constexpr int s = decltype(s_c)::value;
        uint32_t b0[kDn / 2][4], b1[kDn / 2][4];
        ptx::StaticFor<0, kDn / 2>([&](auto x_c) {
          constexpr int x = decltype(x_c)::value, dp = dn0 / 2 + x;
          constexpr int kImm = (k0 + s) * 16 * kRB + (dp / 4) * 128;
          ptx::LdMatrixX4Trans<kImm>(b0[x], v_addr[dp % 4]);
          ptx::LdMatrixX4Trans<kImm + kVPlane>(b1[x], v_addr[dp % 4]);
        });
#pragma unroll
        for (int term = 0; term < 3; ++term)
#pragma unroll
          for (int x = 0; x < kDn; ++x)
#pragma unroll
            for (int mt = 0; mt < kRowTiles; ++mt) {
              const uint32_t(&a)[4] = term == 2 ? p1[mt][s] : p0[mt][s];
              const uint32_t(&b)[4] = term == 1 ? b1[x / 2] : b0[x / 2];
              ptx::Mma16816<__half>(part[mt][x], a, b[2 * (x % 2)], b[2 * (x % 2) + 1]);
            }
      });
#pragma unroll
      for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
        for (int x = 0; x < kDn; ++x)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc_o[mt][dn0 + x][e] += part[mt][x][e];
    });
  });
}

// The fp32 kernel: the 16-bit kernel's structure over 3xFP16 planes. Q is
// read from global memory once, split as it comes; each K and V tile lands
// in the staging tile by cp.async and is split there by the threads that
// copied it (a thread sees its own copies once they have landed), before
// the barrier that hands it to the other warps.
template <int kD, int kBc, int kWarps, int kRowTiles, bool kCausal, bool kExact>
__global__ void __launch_bounds__(32 * kWarps)
    FusedFp32Kernel(const float* __restrict__ q, const float* __restrict__ k,
                    const float* __restrict__ v, float* __restrict__ o, int n, int head_dim_arg,
                    int m_blocks, float scale_log2, SplitKvPartials part, Fp32Range range) {
  const int d = kExact ? kD : head_dim_arg;
  using L = Fp32Tiles<kD, kBc, kWarps, kRowTiles>;
  using Stage = typename L::Stage;
  constexpr int kBr = Stage::kBr, kWarpRows = Stage::kWarpRows;
  constexpr int kRB = L::kRB;
  constexpr int kDT = kD / 8, kST = kBc / 8;
  constexpr int kCopyRows = Stage::kCopyRows, kVariants = Stage::kDstVariants;
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t base = ptx::SharedAddress(smem);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const BlockPlace place = PlaceOf<kCausal>(part.splits, m_blocks, kBr);
  const int q0 = place.q0;
  const int64_t head = place.bh * int64_t(n) * d;

  // This thread's copy slot: fp32 chunk c (4 floats) of its rows is half
  // c % 2 of 16-bit chunk c / 2 in the planes.
  const CopySlot<Stage> slot = SlotOf<Stage>(base, head, d);
  uint32_t plane_dst[kVariants];
#pragma unroll
  for (int x = 0; x < kVariants; ++x)
    plane_dst[x] = base + uint32_t(slot.r0 * kRB) +
                   uint32_t(((slot.c / 2) ^ ((slot.r0 + x * kCopyRows) & 7)) << 4) +
                   8 * (slot.c % 2);
  const float* k_src = k + slot.src;
  const float* v_src = v + slot.src;

  const int kv_end = kCausal ? min(n, q0 + kBr) : n;
  const KvRange keys = SplitKvRange((kv_end + kBc - 1) / kBc, part.splits, place.split);

  // Each tensor scaled by a power of two into fp16's range (RangeShift), so
  // that SplitHalves holds any finite input: S comes out scaled by
  // 2^(sq + sk), taken out of the softmax's scale (in two factors, each
  // within float's exponents), and O by 2^sv, taken out as it is stored.
  const bool measured = range.measured != nullptr;
  const int sq = RangeShift(measured ? range.measured[0] : range.bound_bits);
  const int sk = RangeShift(measured ? range.measured[1] : range.bound_bits);
  const int sv = RangeShift(measured ? range.measured[2] : range.bound_bits);
  const float q_factor = Pow2(sq), k_factor = Pow2(sk), v_factor = Pow2(sv);
  const float o_factor = Pow2(-sv);
  const int s_shift = -(sq + sk);
  const float score_scale = scale_log2 * Pow2(s_shift / 2) * Pow2(s_shift - s_shift / 2);

  // Four floats of row i of this thread's rows, times `factor`, split into
  // the planes at kPlane (h0) and kPlane + kPlaneBytes (h1).
  auto store_split = [&](auto i_c, auto plane_c, auto bytes_c, float4 x, float factor) {
    constexpr int i = decltype(i_c)::value, kPlane = decltype(plane_c)::value;
    uint32_t h0[2], h1[2];
    ptx::SplitHalves(x.x * factor, x.y * factor, h0[0], h1[0]);
    ptx::SplitHalves(x.z * factor, x.w * factor, h0[1], h1[1]);
    ptx::StShared64<kPlane + i * kCopyRows * kRB>(plane_dst[i % kVariants], h0[0], h0[1]);
    ptx::StShared64<kPlane + decltype(bytes_c)::value + i * kCopyRows * kRB>(
        plane_dst[i % kVariants], h1[0], h1[1]);
  };
  // The staged tile (this thread's copies have landed), times `factor`,
  // into the planes at kPlane.
  auto split_stage = [&](auto plane_c, float factor) {
    ptx::StaticFor<0, kBc / kCopyRows>([&](auto i_c) {
      constexpr int i = decltype(i_c)::value;
      store_split(
          i_c, plane_c, std::integral_constant<int, L::kKVPlane>{},
          ptx::LdShared128<L::kStage + i * kCopyRows * Stage::kRowBytes>(slot.dst[i % kVariants]),
          factor);
    });
  };

  Stage::template Load<kBc, L::kStage>(slot.dst, k_src + int64_t(keys.begin) * kBc * d, k + head,
                                       slot.r0, n - keys.begin * kBc, d, slot.in);
  ptx::CpAsyncCommit();
  {
    // Q from global memory, eight rows' loads in flight at a time, while
    // K's first tile lands.
    constexpr int kPasses = kBr / kCopyRows, kBatch = kPasses < 8 ? kPasses : 8;
    const float* q_src = q + slot.src + int64_t(q0) * d;
    ptx::StaticFor<0, kPasses / kBatch>([&](auto b_c) {
      constexpr int i0 = decltype(b_c)::value * kBatch;
      float4 x[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const bool in = slot.in && q0 + slot.r0 + (i0 + b) * kCopyRows < n;
        x[b] =
            in ? __ldg(reinterpret_cast<const float4*>(q_src + int64_t((i0 + b) * kCopyRows) * d))
               : make_float4(0, 0, 0, 0);
      }
      ptx::StaticFor<0, kBatch>([&](auto b_c2) {
        store_split(std::integral_constant<int, i0 + decltype(b_c2)::value>{},
                    std::integral_constant<int, L::kQ>{}, std::integral_constant<int, L::kQPlane>{},
                    x[decltype(b_c2)::value], q_factor);
      });
    });
  }
  const int warp_row0 = warp * kWarpRows;
  const int warp_q0 = q0 + warp_row0;
  const int g = lane / 4, t = lane % 4;
  const LdMatrixAddresses addr = AddressesOf<kRB>(base, L::kQ, L::kK, L::kV, warp_row0);

  float acc_o[kRowTiles][kDT][4];
  float row_max[kRowTiles][2], row_sum[kRowTiles][2];
  ClearState(acc_o, row_max, row_sum);

  for (int j = keys.begin; j < keys.end; ++j) {
    const int kb = j * kBc;
    ptx::CpAsyncWait<0>();
    split_stage(std::integral_constant<int, L::kK>{}, k_factor);
    __syncthreads();  // K_j split (Q too, at the first); every warp is done with V_{j-1}
    Stage::template Load<kBc, L::kStage>(slot.dst, v_src + int64_t(kb) * d, v + head, slot.r0,
                                         n - kb, d, slot.in);
    ptx::CpAsyncCommit();
    const bool active = !kCausal || kb <= warp_q0 + kWarpRows - 1;

    float acc_s[kRowTiles][kST][4];
    if (active) {
#pragma unroll
      for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < kST; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc_s[mt][nt][e] = 0;
      float acc_small[kRowTiles][kST][4] = {};
      ptx::StaticFor<0, kD / 16>([&](auto ks_c) {
        constexpr int ks = decltype(ks_c)::value;
        constexpr int kChunkImm = (ks / 4) * 128;
        uint32_t a0[kRowTiles][4], a1[kRowTiles][4];
        ptx::StaticFor<0, kRowTiles>([&](auto mt_c) {
          constexpr int mt = decltype(mt_c)::value;
          ptx::LdMatrixX4<mt * 16 * kRB + kChunkImm>(a0[mt], addr.q[ks % 4]);
          ptx::LdMatrixX4<mt * 16 * kRB + kChunkImm + L::kQPlane>(a1[mt], addr.q[ks % 4]);
        });
        ptx::StaticFor<0, kBc / 16>([&](auto np_c) {
          constexpr int np = decltype(np_c)::value;
          uint32_t b0[4], b1[4];
          ptx::LdMatrixX4<np * 16 * kRB + kChunkImm>(b0, addr.k[ks % 4]);
          ptx::LdMatrixX4<np * 16 * kRB + kChunkImm + L::kKVPlane>(b1, addr.k[ks % 4]);
          Scores3xFp16<2 * np>(acc_s, acc_small, a0, a1, b0, b1);
        });
      });
#pragma unroll
      for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < kST; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc_s[mt][nt][e] += acc_small[mt][nt][e];
      MaskScores<kCausal>(acc_s, kb, n, warp_q0, g, t);
    }
    ptx::CpAsyncWait<0>();
    split_stage(std::integral_constant<int, L::kV>{}, v_factor);
    __syncthreads();  // V_j split; every warp is done with K_j
    if (j + 1 < keys.end)
      Stage::template Load<kBc, L::kStage>(slot.dst, k_src + int64_t(kb + kBc) * d, k + head,
                                           slot.r0, n - kb - kBc, d, slot.in);
    ptx::CpAsyncCommit();
    if (!active) continue;
    SoftmaxStep(acc_s, acc_o, row_max, row_sum, score_scale);
    AccumulatePv3xFp16<kRowTiles, kST, kDT, kRB, L::kKVPlane>(acc_o, acc_s, addr.v);
  }

  ptx::CpAsyncWait<0>();  // an empty split's K copy
  if (part.splits > 1) {
    StorePartials(acc_o, row_max, row_sum, part, place.split, place.bh, m_blocks, n, d, warp_q0,
                  score_scale, o_factor);
    return;
  }
  // O / row sum (scaled back) as fp32 rows over Q's planes, this warp's own
  // rows (no warp reads Q after the last tile's second barrier), a column
  // pair half of chunk 2 dn + t / 2, then stored.
  StageRows(acc_o, row_sum, warp_row0, [&](int r, int dn, float lo, float hi) {
    *reinterpret_cast<float2*>(smem + L::kQ + Stage::Offset(r, 2 * dn + t / 2) + 8 * (t % 2)) =
        make_float2(lo * o_factor, hi * o_factor);
  });
  __syncwarp();
  StoreRows<Stage>(smem + L::kQ, o + head, q0, warp_row0, n, d);
}

template <typename T, int kD, int kBc, int kWarps, int kRowTiles, bool kCausal, bool kExact>
cudaError_t Launch(const AttentionShape& shape, const AttentionTensors& x, int splits,
                   cudaStream_t stream) {
  // T = float: the fp32 kernel (3xFP16) and its shared-memory layout; else
  // the 16-bit kernel's Q, K and V tiles.
  using Tiles = MmaTiles<T, kD, kBc, kWarps, kRowTiles>;
  constexpr int kSmemBytes = [] {
    if constexpr (std::is_same_v<T, float>)
      return Fp32Tiles<kD, kBc, kWarps, kRowTiles>::kSmemBytes;
    else
      return Tiles::kQBytes + 2 * Tiles::kKVBytes;
  }();
  auto kernel = [] {
    if constexpr (std::is_same_v<T, float>)
      return FusedFp32Kernel<kD, kBc, kWarps, kRowTiles, kCausal, kExact>;
    else
      return FusedMmaKernel<T, kD, kBc, kWarps, kRowTiles, kCausal, kExact>;
  }();
  const int n = int(shape.seq_len);
  const int m_blocks = (n + Tiles::kBr - 1) / Tiles::kBr;
  const int64_t blocks = shape.BatchHeads() * m_blocks * splits;
  if (blocks > int64_t(INT32_MAX)) return cudaErrorInvalidValue;
  SplitKvPartials part;
  if (!SplitKvPartialsIn(shape, splits, x.workspace, &part)) return cudaErrorInvalidValue;
  if (cudaError_t e =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
      e != cudaSuccess)
    return e;
  const float scale_log2 = SoftmaxScaleLog2(shape.head_dim);
  const T *q = static_cast<const T*>(x.q), *k = static_cast<const T*>(x.k),
          *v = static_cast<const T*>(x.v);
  if constexpr (std::is_same_v<T, float>) {
    // The caller's bound, or the range pass; then the kernel that scales by
    // it.
    Fp32Range range;
    if (x.input_bound > 0) {
      std::memcpy(&range.bound_bits, &x.input_bound, sizeof(float));
    } else {
      uint32_t* words = reinterpret_cast<uint32_t*>(static_cast<char*>(x.workspace) +
                                                    Fp32RangeOffset(shape, splits));
      if (cudaError_t e = LaunchFp32Range(q, k, v, shape.TensorElements(), words, stream);
          e != cudaSuccess)
        return e;
      range.measured = words;
    }
    kernel<<<unsigned(blocks), Tiles::kThreads, kSmemBytes, stream>>>(
        q, k, v, static_cast<T*>(x.o), n, int(shape.head_dim), m_blocks, scale_log2, part, range);
  } else {
    kernel<<<unsigned(blocks), Tiles::kThreads, kSmemBytes, stream>>>(
        q, k, v, static_cast<T*>(x.o), n, int(shape.head_dim), m_blocks, scale_log2, part);
  }
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess || splits == 1) return e;
  return LaunchSplitKvCombine(shape, DTypeOf<T>(), splits, x.workspace, x.o, stream);
}

template <typename T, int kD, int kBc, int kWarps, int kRowTiles, bool kExact = true>
cudaError_t LaunchCausal(const AttentionShape& shape, const AttentionTensors& x, int splits,
                         cudaStream_t stream) {
  return shape.causal
             ? Launch<T, kD, kBc, kWarps, kRowTiles, true, kExact>(shape, x, splits, stream)
             : Launch<T, kD, kBc, kWarps, kRowTiles, false, kExact>(shape, x, splits, stream);
}

template <typename T>
cudaError_t LaunchTyped(const AttentionShape& shape, const AttentionTensors& x, MmaConfig config,
                        int splits, cudaStream_t stream) {
  const int padded = FusedPaddedHeadDim(shape.head_dim);
  // d = 256: one tiling for every config (8 warps of 16 rows keep O's
  // accumulators at 128 registers a thread). A padded head_dim: the default
  // config's tiling (MmaKvTile says the same).
  if (padded != shape.head_dim) {
    if (padded == 64) return LaunchCausal<T, 64, 128, 4, 2, false>(shape, x, splits, stream);
    if (padded == 128) return LaunchCausal<T, 128, 64, 4, 2, false>(shape, x, splits, stream);
    return LaunchCausal<T, 256, 64, 8, 1, false>(shape, x, splits, stream);
  }
  if (padded == 256) return LaunchCausal<T, 256, 64, 8, 1>(shape, x, splits, stream);
  const bool d64 = padded == 64;
  switch (config) {
    case MmaConfig::kWarps4Rows32:
      return d64 ? LaunchCausal<T, 64, 128, 4, 2>(shape, x, splits, stream)
                 : LaunchCausal<T, 128, 64, 4, 2>(shape, x, splits, stream);
    case MmaConfig::kWarps8Rows16:
      return d64 ? LaunchCausal<T, 64, 64, 8, 1>(shape, x, splits, stream)
                 : LaunchCausal<T, 128, 64, 8, 1>(shape, x, splits, stream);
    case MmaConfig::kWarps4Rows32Narrow:
      return d64 ? LaunchCausal<T, 64, 64, 4, 2>(shape, x, splits, stream)
                 : LaunchCausal<T, 128, 32, 4, 2>(shape, x, splits, stream);
  }
  return cudaErrorInvalidValue;
}

// fp32 (3xFP16) tilings, the one table of them: warps, row tiles and key
// tile by config at a head_dim of 64, 128 or 256. Shared memory
// (Fp32Tiles) holds Q's, K's and V's fp16 planes and one fp32 staging tile:
// 128 query rows and keys of 64 at d = 128 are 160 KiB. d = 256 runs 8
// warps of 16 rows for every config (O's accumulators are 128 registers a
// thread) with keys of 32 (224 KiB).
template <Fp32Config kConfigOf, int kD>
struct Fp32Tiling {
  static constexpr Fp32Config kConfig = kConfigOf;
  static constexpr bool kWide = kD == 256;
  static constexpr int kWarps = kWide || kConfigOf == Fp32Config::kWarps8Rows16 ? 8 : 4;
  static constexpr int kRowTiles = !kWide && kConfigOf == Fp32Config::kWarps4Rows32 ? 2 : 1;
  static constexpr int kBc = kWide                                                ? 32
                             : kD == 64 || kConfigOf == Fp32Config::kWarps8Rows16 ? 64
                                                                                  : 32;
  static constexpr int kBr = 16 * kRowTiles * kWarps;
};

// f(Fp32Tiling<config, kD>{}, std::integral_constant<int, kD>{}) for the
// tiling of `config` at the padded head_dim (a padded one takes
// kWarps8Rows16's); returns what f returns.
template <typename F>
auto WithFp32Tiling(Fp32Config config, int64_t head_dim, F&& f) {
  const int padded = FusedPaddedHeadDim(head_dim);
  if (padded != head_dim) config = Fp32Config::kWarps8Rows16;
  auto at = [&](auto d_c) {
    constexpr int kD = decltype(d_c)::value;
    switch (config) {
      case Fp32Config::kWarps4Rows16:
        return f(Fp32Tiling<Fp32Config::kWarps4Rows16, kD>{}, d_c);
      case Fp32Config::kWarps4Rows32:
        return f(Fp32Tiling<Fp32Config::kWarps4Rows32, kD>{}, d_c);
      case Fp32Config::kWarps8Rows16:
        break;
    }
    return f(Fp32Tiling<Fp32Config::kWarps8Rows16, kD>{}, d_c);
  };
  if (padded == 64) return at(std::integral_constant<int, 64>{});
  if (padded == 128) return at(std::integral_constant<int, 128>{});
  return at(std::integral_constant<int, 256>{});
}

}  // namespace

Fp32Config Fp32ConfigFor(const AttentionShape& shape) {
  return shape.head_dim == 64 ? Fp32Config::kWarps4Rows32 : Fp32Config::kWarps8Rows16;
}

int Fp32KvTile(Fp32Config config, int64_t head_dim) {
  return WithFp32Tiling(config, head_dim, [](auto t, auto) { return decltype(t)::kBc; });
}

int Fp32QueryRows(Fp32Config config, int64_t head_dim) {
  return WithFp32Tiling(config, head_dim, [](auto t, auto) { return decltype(t)::kBr; });
}

SplitKvKernel Fp32SplitKvKernel(Fp32Config config, int64_t head_dim) {
  SplitKvKernel k;
  k.query_rows = Fp32QueryRows(config, head_dim);
  k.kv_tile = Fp32KvTile(config, head_dim);
  k.blocks_per_sm = FusedPaddedHeadDim(head_dim) <= 128 ? 2 : 1;
  k.item_keys = 16;
  k.combine_keys = 0;
  return k;
}

cudaError_t LaunchAttentionFusedFp32(const AttentionShape& shape, const AttentionTensors& tensors,
                                     Fp32Config config, int splits, cudaStream_t stream) {
  // (The range words are in the workspace, split or not.)
  if (!FusedLaunchable(shape, splits) || tensors.workspace == nullptr ||
      !(tensors.input_bound >= 0 && tensors.input_bound <= FLT_MAX))
    return cudaErrorInvalidValue;
  const bool exact = FusedPaddedHeadDim(shape.head_dim) == shape.head_dim;
  return WithFp32Tiling(config, shape.head_dim, [&](auto t, auto d_c) {
    using T = decltype(t);
    constexpr int kD = decltype(d_c)::value;
    // A padded head_dim runs kWarps8Rows16's tiling only (WithFp32Tiling):
    // no other tiling is built for it.
    if constexpr (T::kConfig == Fp32Config::kWarps8Rows16)
      if (!exact)
        return LaunchCausal<float, kD, T::kBc, T::kWarps, T::kRowTiles, false>(shape, tensors,
                                                                               splits, stream);
    return LaunchCausal<float, kD, T::kBc, T::kWarps, T::kRowTiles, true>(shape, tensors, splits,
                                                                          stream);
  });
}

int MmaKvTile(MmaConfig config, int64_t head_dim) {
  const int padded = FusedPaddedHeadDim(head_dim);  // as LaunchTyped's templates
  if (padded == 256) return 64;
  if (padded != head_dim) config = kDefaultMmaConfig;
  const bool d64 = padded == 64;
  switch (config) {
    case MmaConfig::kWarps4Rows32:
      return d64 ? 128 : 64;
    case MmaConfig::kWarps8Rows16:
      return 64;
    case MmaConfig::kWarps4Rows32Narrow:
      return d64 ? 64 : 32;
  }
  return 64;
}

SplitKvKernel MmaSplitKvKernel(int64_t head_dim) {
  SplitKvKernel k;
  k.query_rows = kFusedQueryRows;
  k.kv_tile = MmaKvTile(kDefaultMmaConfig, head_dim);
  k.blocks_per_sm = 1;
  k.item_keys = kWgmmaItemKeys;
  k.combine_keys = kWgmmaCombineKeys;
  return k;
}

cudaError_t LaunchAttentionFusedMma(const AttentionShape& shape, DType dtype,
                                    const AttentionTensors& tensors, MmaConfig config, int splits,
                                    cudaStream_t stream) {
  if (!FusedLaunchable(shape, splits)) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp16:
      return LaunchTyped<__half>(shape, tensors, config, splits, stream);
    case DType::kBf16:
      return LaunchTyped<__nv_bfloat16>(shape, tensors, config, splits, stream);
    case DType::kFp32:
    case DType::kFp8:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
