// Fused attention on tensor cores by mma.sync (FlashAttention-2's forward
// structure): fp16 and bf16, and fp32 in 3xTF32. What it changes over naive
// (attention.h):
//   - One kernel. A block owns kBr query rows of one (batch, head) and
//     walks the key/value rows in tiles of kBc; S and P exist only as
//     registers of one tile, never in HBM: O's traffic is Q, K, V read and O
//     written (K and V once per query block, mostly from L2).
//   - Online softmax in fp32: a running row max and row sum, O rescaled by
//     exp(m_old - m_new) as tiles arrive, divided by the sum once at the end.
//   - Tensor cores, fp32 accumulators. Each warp owns kRowTiles x 16 query
//     rows; Q and K tiles come to registers by ldmatrix, and P goes from the
//     S accumulators to the A operand of P V without leaving registers.
//     16-bit: mma.sync m16n8k16, V by ldmatrix.trans, P rounded to the dtype
//     (as FlashAttention does). fp32: m16n8k8 tf32, each product as three
//     (big_a big_b + big_a small_b + small_a big_b, attention_ptx.cuh); K
//     and V are split into big and small halves once a block as they land
//     (SplitOwn), Q and P once a warp; V by 32-bit loads, P with its keys
//     permuted to match the accumulator layout (AccumulatePvTf32). The
//     tensor cores truncate as they accumulate, so no chain of fp32 sums on
//     them is long: small products apart, P V a group of keys at a time.
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
// Tolerances: kernels/tolerances.h (fp32 outputs of 3xTF32 measured at a
// relative L2 error of 2e-8 to 7e-7 on the H200, well inside fp32's bound).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda/attention_fused_mma.h"
#include "kernels/cuda/attention_fused_wgmma.h"
#include "kernels/cuda/attention_ptx.cuh"
#include "kernels/cuda/attention_split_kv.cuh"
#include "kernels/cuda/attention_split_kv.h"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

// T: __half, __nv_bfloat16 or float (3xTF32).
template <typename T, int kD, int kBc, int kWarps, int kRowTiles>
struct MmaTiles {
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kWarpRows = 16 * kRowTiles;
  static constexpr int kBr = kWarpRows * kWarps;
  static constexpr int kElems = 16 / int(sizeof(T));  // elements of a chunk
  static constexpr int kChunks = kD / kElems;         // 16-byte chunks of a row
  static constexpr int kRowBytes = kD * int(sizeof(T));
  // k-steps of Q K^T: an mma covers two chunks of a row (k = 16 halves, or
  // 8 floats in tf32).
  static constexpr int kKSteps = kChunks / 2;
  static constexpr int kQBytes = kBr * kRowBytes;
  static constexpr int kKVBytes = kBc * kRowBytes;
  // Shared memory: Q, K, V tiles; in tf32 then the small halves of K and V
  // (SplitOwn), laid out as their tiles.
  static constexpr bool kTf32 = std::is_same_v<T, float>;
  static constexpr int kKSmall = kQBytes + 2 * kKVBytes;
  static constexpr int kVSmall = kKSmall + kKVBytes;
  static constexpr int kSmemBytes = kTf32 ? kVSmall + kKVBytes : kKSmall;
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
  static __device__ __forceinline__ void MakeCopyDst(CopyDst& dst, uint32_t base,
                                                     int r0, int c) {
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
  static __device__ __forceinline__ void Load(const CopyDst& dst, const T* src,
                                              const T* safe, int r0, int valid,
                                              int d, bool chunk_in) {
    ptx::StaticFor<0, kRows / kCopyRows>([&](auto i) {
      constexpr int kRow = decltype(i)::value * kCopyRows;
      const bool in = chunk_in && r0 + kRow < valid;
      ptx::CpAsync16<kTile + kRow * kRowBytes>(
          dst[decltype(i)::value % kDstVariants], in ? src + int64_t(kRow) * d : safe,
          in ? 16 : 0);
    });
  }

  // tf32: once this thread's copies of rows [0, kRows) into the tile at
  // kTile have landed (cp.async.wait_group; a thread sees its own copies),
  // rewrites each of its chunks as the tf32 big halves of its floats and
  // puts the small halves at the same place in the plane at kSmall. Each
  // element is split once a block, not once a warp.
  template <int kRows, int kTile, int kSmall>
  static __device__ __forceinline__ void SplitOwn(const CopyDst& dst) {
    ptx::StaticFor<0, kRows / kCopyRows>([&](auto i) {
      constexpr int kOff = kTile + decltype(i)::value * kCopyRows * kRowBytes;
      const uint32_t addr = dst[decltype(i)::value % kDstVariants];
      const float4 x = ptx::LdShared128<kOff>(addr);
      const ptx::Tf32Pair p[4] = {ptx::SplitTf32(x.x), ptx::SplitTf32(x.y),
                                  ptx::SplitTf32(x.z), ptx::SplitTf32(x.w)};
      ptx::StShared128<kOff>(addr, make_float4(__uint_as_float(p[0].big),
                                               __uint_as_float(p[1].big),
                                               __uint_as_float(p[2].big),
                                               __uint_as_float(p[3].big)));
      ptx::StShared128<kOff + kSmall - kTile>(
          addr, make_float4(__uint_as_float(p[0].small), __uint_as_float(p[1].small),
                            __uint_as_float(p[2].small), __uint_as_float(p[3].small)));
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

// O += P V_j in 3xTF32. P stays fp32: S n-tile s's accumulators (row g keys
// 8s + 2t, 8s + 2t + 1; row g + 8 the same) are A's fragment of keys
// 8s..8s+7 once its k index is permuted, k = t as key 2t and k = t + 4 as key
// 2t + 1: a = {c0, c2, c1, c3}. V's rows are read in the same order
// (v32_addr, the kernel's), V's big halves from its tile and the small ones
// kSmallImm bytes on (SplitOwn). Keys go in groups (32, 16 with two row
// tiles, or the whole tile when it is 16): a group's P is split once, and
// each n-tile of O sums the group in its own accumulator, added to O in
// fp32, so no tensor-core accumulation chain is longer than 12 mmas (they
// truncate).
template <int kRowTiles, int kST, int kDT, int kRB, int kSmallImm>
__device__ __forceinline__ void AccumulatePvTf32(float (&acc_o)[kRowTiles][kDT][4],
                                                 const float (&acc_s)[kRowTiles][kST][4],
                                                 const uint32_t (&v32_addr)[2][4]) {
  // n-tiles of S (8 keys each) a group: 4, or 2 with two row tiles (their
  // split P is as many registers).
  constexpr int kGroup = kST < 4 ? kST : kRowTiles == 1 ? 4 : 2;
  static_assert(kST % kGroup == 0, "key groups");
  // O's n-tiles at a time (four measured 1-4% faster than two).
  constexpr int kDn = 4;
  ptx::StaticFor<0, kST / kGroup>([&](auto grp_c) {
    constexpr int s0 = decltype(grp_c)::value * kGroup;
    uint32_t pa[kRowTiles][kGroup][4], pa_small[kRowTiles][kGroup][4];
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
      for (int s = 0; s < kGroup; ++s) {
        constexpr int kOrder[4] = {0, 2, 1, 3};
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const ptx::Tf32Pair x =
              ptx::SplitTf32Fast(__float_as_uint(acc_s[mt][s0 + s][kOrder[e]]));
          pa[mt][s][e] = x.big;
          pa_small[mt][s][e] = x.small;
        }
      }
    // kDn n-tiles of O at a time, term by term, so that back-to-back
    // products go to different accumulators (the products are issued in
    // program order).
    ptx::StaticFor<0, kDT / kDn>([&](auto dq_c) {
      constexpr int dn0 = decltype(dq_c)::value * kDn;
      float part[kRowTiles][kDn][4] = {};
      ptx::StaticFor<0, kGroup>([&](auto s_c) {
        constexpr int s = decltype(s_c)::value;
        ptx::Tf32Pair b[kDn][2];
        ptx::StaticFor<0, kDn>([&](auto x_c) {
          constexpr int dn = dn0 + decltype(x_c)::value;
          constexpr int kImm = (s0 + s) * 8 * kRB + (dn / 4) * 128;
#pragma unroll
          for (int h = 0; h < 2; ++h)
            b[decltype(x_c)::value][h] = {
                ptx::LdShared32<kImm>(v32_addr[h][dn % 4]),
                ptx::LdShared32<kImm + kSmallImm>(v32_addr[h][dn % 4])};
        });
#pragma unroll
        for (int term = 0; term < 3; ++term)
#pragma unroll
          for (int x = 0; x < kDn; ++x)
#pragma unroll
            for (int mt = 0; mt < kRowTiles; ++mt) {
              const uint32_t(&a)[4] = term == 2 ? pa_small[mt][s] : pa[mt][s];
              if (term == 1)
                ptx::Mma1688Tf32(part[mt][x], a, b[x][0].small, b[x][1].small);
              else
                ptx::Mma1688Tf32(part[mt][x], a, b[x][0].big, b[x][1].big);
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

// S n-tiles kNt and kNt + 1 += Q K^T over one k-step in 3xTF32, for every
// row tile: a, a_small the Q fragments' halves, b, b_small K's (ldmatrix
// x4: b0 b1 of n-tile kNt, then of kNt + 1). The small products go to
// acc_small; term by term, the big product between the two small ones, so
// that back-to-back products go to different accumulators.
template <int kNt, int kRowTiles, int kST>
__device__ __forceinline__ void ScoresTf32(float (&acc_s)[kRowTiles][kST][4],
                                           float (&acc_small)[kRowTiles][kST][4],
                                           const uint32_t (&a)[kRowTiles][4],
                                           const uint32_t (&a_small)[kRowTiles][4],
                                           const uint32_t (&b)[4],
                                           const uint32_t (&b_small)[4]) {
#pragma unroll
  for (int term = 0; term < 3; ++term)
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const uint32_t b0 = b[2 * h], b1 = b[2 * h + 1];
        if (term == 0)
          ptx::Mma1688Tf32(acc_small[mt][kNt + h], a_small[mt], b0, b1);
        else if (term == 1)
          ptx::Mma1688Tf32(acc_s[mt][kNt + h], a[mt], b0, b1);
        else
          ptx::Mma1688Tf32(acc_small[mt][kNt + h], a[mt], b_small[2 * h], b_small[2 * h + 1]);
      }
}

// kExact: head_dim is kD, so every row stride is an immediate; otherwise
// head_dim_arg < kD is the tensors' row length (padded on chip).
template <typename T, int kD, int kBc, int kWarps, int kRowTiles, bool kCausal,
          bool kExact>
__global__ void __launch_bounds__(32 * kWarps)
    FusedMmaKernel(const T* __restrict__ q, const T* __restrict__ k,
                   const T* __restrict__ v, T* __restrict__ o, int n,
                   int head_dim_arg, int m_blocks, float scale_log2,
                   SplitKvPartials part) {
  const int d = kExact ? kD : head_dim_arg;
  using Tiles = MmaTiles<T, kD, kBc, kWarps, kRowTiles>;
  constexpr bool kTf32 = Tiles::kTf32;
  constexpr int kBr = Tiles::kBr, kWarpRows = Tiles::kWarpRows;
  constexpr int kRB = Tiles::kRowBytes;
  constexpr int kQTile = 0, kKTile = Tiles::kQBytes;
  constexpr int kVTile = Tiles::kQBytes + Tiles::kKVBytes;
  constexpr int kDT = kD / 8;   // n-tiles of O
  constexpr int kST = kBc / 8;  // n-tiles of S
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t base = ptx::SharedAddress(smem);

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int split = int(blockIdx.x % part.splits);
  const int64_t block = blockIdx.x / part.splits;
  const int64_t bh = block / m_blocks;
  int mb = int(block % m_blocks);
  if (kCausal) mb = m_blocks - 1 - mb;  // the longest rows first
  const int q0 = mb * kBr;
  const int64_t head = bh * int64_t(n) * d;

  // This thread's tile-copy slot: rows copy_r0 + i * kCopyRows, one chunk.
  const int copy_r0 = tid / Tiles::kChunks, copy_c = tid % Tiles::kChunks;
  typename Tiles::CopyDst copy_dst;
  Tiles::MakeCopyDst(copy_dst, base, copy_r0, copy_c);
  const int64_t copy_src = head + int64_t(copy_r0) * d + copy_c * Tiles::kElems;
  const bool copy_in = copy_c * Tiles::kElems < d;  // chunks past d: zeros
  const T* q_src = q + copy_src;
  const T* k_src = k + copy_src;
  const T* v_src = v + copy_src;

  const int kv_end = kCausal ? min(n, q0 + kBr) : n;
  const KvRange range = SplitKvRange((kv_end + kBc - 1) / kBc, part.splits, split);

  Tiles::template Load<kBr, kQTile>(copy_dst, q_src + int64_t(q0) * d,
                                    q + head, copy_r0, n - q0, d, copy_in);
  Tiles::template Load<kBc, kKTile>(copy_dst, k_src + int64_t(range.begin) * kBc * d,
                                    k + head, copy_r0, n - range.begin * kBc, d,
                                    copy_in);
  ptx::CpAsyncCommit();
  const int warp_row0 = warp * kWarpRows;  // within the block
  const int warp_q0 = q0 + warp_row0;      // within the sequence
  const int g = lane / 4, t = lane % 4;

  // ldmatrix addresses. Every row a lane addresses is = lane (mod 8), so
  // chunk 8a + b of it sits at 8a + (b ^ lane % 8): a lane needs one
  // register per b / 2 and operand order, the rest are immediates.
  //   A order (Q; V with .trans): row lane % 8 + 8 * (lane / 8 % 2), chunk
  //     2 * step + lane / 16.  B order (K): row lane % 8 + 8 * (lane / 16),
  //     chunk 2 * step + lane / 8 % 2.
  const int s8 = lane % 8;
  const int a_row = s8 + ((lane / 8) & 1) * 8, a_chunk = lane / 16;
  const int b_row = s8 + (lane / 16) * 8, b_chunk = (lane / 8) & 1;
  uint32_t q_addr[4], k_addr[4], v_addr[4];
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const uint32_t sw_a = uint32_t(((2 * b + a_chunk) ^ s8) << 4);
    const uint32_t sw_b = uint32_t(((2 * b + b_chunk) ^ s8) << 4);
    q_addr[b] = base + kQTile + (warp_row0 + a_row) * kRB + sw_a;
    k_addr[b] = base + kKTile + b_row * kRB + sw_b;
    v_addr[b] = base + kVTile + a_row * kRB + sw_a;
  }

  // tf32: V's B fragments by 32-bit loads (no ldmatrix transposes 32-bit
  // elements). P's A fragment of keys 8s..8s+7 is S n-tile s's accumulators
  // with its k index permuted (k = t is key 2t, k = t + 4 is key 2t + 1; see
  // the P V step), so a lane reads V rows 8s + 2t and 8s + 2t + 1 at column
  // 8 dn + g: swizzled, chunk (2 dn + g / 4) ^ row % 8. v32_addr[h][x]: row
  // 2t + h, chunks of dn % 4 = x; the row block s and dn / 4 are immediates.
  // The 32 lanes of one load hit 32 distinct banks.
  uint32_t v32_addr[2][4];
  if constexpr (kTf32) {
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const int r = 2 * t + h;
        v32_addr[h][x] = base + kVTile + r * kRB +
                         uint32_t((((2 * x) | (g / 4)) ^ r) << 4) + 4 * (g % 4);
      }
  }

  float acc_o[kRowTiles][kDT][4];
  float row_max[kRowTiles][2], row_sum[kRowTiles][2];
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt) {
#pragma unroll
    for (int dn = 0; dn < kDT; ++dn)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc_o[mt][dn][e] = 0;
    row_max[mt][0] = row_max[mt][1] = -INFINITY;
    row_sum[mt][0] = row_sum[mt][1] = 0;
  }

  for (int j = range.begin; j < range.end; ++j) {
    const int kb = j * kBc;
    ptx::CpAsyncWait<0>();
    if constexpr (kTf32) Tiles::template SplitOwn<kBc, kKTile, Tiles::kKSmall>(copy_dst);
    __syncthreads();  // K_j landed; every warp is done with V_{j-1}
    Tiles::template Load<kBc, kVTile>(copy_dst, v_src + int64_t(kb) * d,
                                      v + head, copy_r0, n - kb, d, copy_in);
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
      // S = Q K_j^T. tf32: the small products go to their own accumulators,
      // added once at the end, so that the big products' chain is d / 8
      // mmas long (the tensor cores truncate each accumulation).
      float acc_small[kTf32 ? kRowTiles : 1][kTf32 ? kST : 1][4] = {};
      // tf32 with few S accumulators (key tiles of 16): odd k-steps sum
      // into a second set, so that a product does not wait on the last.
      constexpr bool kTwoSets = kTf32 && kRowTiles * kST <= 2;
      [[maybe_unused]] float acc_odd[kTwoSets ? kRowTiles : 1][kTwoSets ? kST : 1][4] = {};
      [[maybe_unused]] float small_odd[kTwoSets ? kRowTiles : 1][kTwoSets ? kST : 1][4] = {};
      ptx::StaticFor<0, Tiles::kKSteps>([&](auto ks_c) {
        constexpr int ks = decltype(ks_c)::value;
        constexpr int kChunkImm = (ks / 4) * 128;
        uint32_t a[kRowTiles][4];
        [[maybe_unused]] uint32_t a_small[kTf32 ? kRowTiles : 1][4];
        ptx::StaticFor<0, kRowTiles>([&](auto mt_c) {
          constexpr int mt = decltype(mt_c)::value;
          ptx::LdMatrixX4<mt * 16 * kRB + kChunkImm>(a[mt], q_addr[ks % 4]);
          if constexpr (kTf32) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const ptx::Tf32Pair x = ptx::SplitTf32Fast(a[mt][e]);
              a[mt][e] = x.big;
              a_small[mt][e] = x.small;
            }
          }
        });
        ptx::StaticFor<0, kBc / 16>([&](auto np_c) {
          constexpr int np = decltype(np_c)::value;
          uint32_t b[4];
          ptx::LdMatrixX4<np * 16 * kRB + kChunkImm>(b, k_addr[ks % 4]);
          if constexpr (kTf32) {
            // K's big halves from its tile, the small ones from their plane.
            uint32_t b_small[4];
            ptx::LdMatrixX4<np * 16 * kRB + kChunkImm + Tiles::kKSmall - kKTile>(
                b_small, k_addr[ks % 4]);
            if constexpr (kTwoSets && ks % 2 == 1)
              ScoresTf32<2 * np>(acc_odd, small_odd, a, a_small, b, b_small);
            else
              ScoresTf32<2 * np>(acc_s, acc_small, a, a_small, b, b_small);
          } else {
#pragma unroll
            for (int mt = 0; mt < kRowTiles; ++mt) {
              ptx::Mma16816<T>(acc_s[mt][2 * np], a[mt], b[0], b[1]);
              ptx::Mma16816<T>(acc_s[mt][2 * np + 1], a[mt], b[2], b[3]);
            }
          }
        });
      });
      if constexpr (kTf32) {
#pragma unroll
        for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
          for (int nt = 0; nt < kST; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              acc_s[mt][nt][e] += acc_small[mt][nt][e];
              if constexpr (kTwoSets)
                acc_s[mt][nt][e] += acc_odd[mt][nt][e] + small_odd[mt][nt][e];
            }
      }
      // Keys past N, and (causal) keys after the query: element (nt, e) of
      // a row holds key kb + 8 nt + 2t + e, kept while below `end`.
      if (kb + kBc > n || (kCausal && kb + kBc - 1 > warp_q0)) {
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
    }
    ptx::CpAsyncWait<0>();
    if constexpr (kTf32) Tiles::template SplitOwn<kBc, kVTile, Tiles::kVSmall>(copy_dst);
    __syncthreads();  // V_j landed; every warp is done with K_j
    if (j + 1 < range.end)
      Tiles::template Load<kBc, kKTile>(copy_dst, k_src + int64_t(kb + kBc) * d,
                                        k + head, copy_r0, n - kb - kBc, d,
                                        copy_in);
    ptx::CpAsyncCommit();
    if (!active) continue;

    // Online softmax; a thread holds rows g and g + 8 of each row tile.
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
            const float p =
                ptx::Exp2(fmaf(acc_s[mt][nt][2 * h + e], scale_log2, -shift));
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

    // O += P V_j
    if constexpr (kTf32)
      AccumulatePvTf32<kRowTiles, kST, kDT, kRB, Tiles::kVSmall - kVTile>(acc_o, acc_s,
                                                                           v32_addr);
    else
      AccumulatePv16<T, kRowTiles, kST, kDT, kRB>(acc_o, acc_s, v_addr);
  }

  ptx::CpAsyncWait<0>();  // an empty split's Q and K copies
  if (part.splits > 1) {
    // Partials: O / this split's row sum, and the row's lse, both fp32.
    const int64_t rows = int64_t(gridDim.x / part.splits / m_blocks) * n;
    const int64_t first = split * rows + bh * int64_t(n);
#pragma unroll
    for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float total = row_sum[mt][h];
        total += __shfl_xor_sync(~0u, total, 1);
        total += __shfl_xor_sync(~0u, total, 2);
        const float inv = total > 0 ? 1.0f / total : 0.0f;
        const int r = warp_q0 + mt * 16 + g + 8 * h;
        if (r >= n) continue;
        float* po = part.o + (first + r) * d + 2 * t;
#pragma unroll
        for (int dn = 0; dn < kDT; ++dn)
          if (dn * 8 < d)
            *reinterpret_cast<float2*>(po + dn * 8) = make_float2(
                acc_o[mt][dn][2 * h] * inv, acc_o[mt][dn][2 * h + 1] * inv);
        if (t == 0)
          part.lse[first + r] = SplitKvLse(row_max[mt][h], total, scale_log2);
      }
    return;
  }
  // O / row sum, staged through this warp's own rows of the Q tile (no other
  // warp reads them), then 16-byte coalesced stores of the rows below N.
#pragma unroll
  for (int mt = 0; mt < kRowTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float total = row_sum[mt][h];
      total += __shfl_xor_sync(~0u, total, 1);
      total += __shfl_xor_sync(~0u, total, 2);
      const float inv = total > 0 ? 1.0f / total : 0.0f;
      const int r = warp_row0 + mt * 16 + g + 8 * h;
#pragma unroll
      for (int dn = 0; dn < kDT; ++dn) {
        // Columns 8 dn + 2t and + 1: one 4-byte pair, or two floats.
        const float lo = acc_o[mt][dn][2 * h] * inv, hi = acc_o[mt][dn][2 * h + 1] * inv;
        if constexpr (kTf32)
          *reinterpret_cast<float2*>(smem + kQTile + Tiles::Offset(r, 2 * dn + t / 2) +
                                     8 * (t % 2)) = make_float2(lo, hi);
        else
          *reinterpret_cast<uint32_t*>(smem + kQTile + Tiles::Offset(r, dn) + 4 * t) =
              ptx::PackPair<T>(lo, hi);
      }
    }
  __syncwarp();
  T* oh = o + head;
#pragma unroll
  for (int i = lane; i < kWarpRows * Tiles::kChunks; i += 32) {
    const int r = warp_row0 + i / Tiles::kChunks, c = i % Tiles::kChunks;
    if (q0 + r < n && c * Tiles::kElems < d)
      *reinterpret_cast<uint4*>(oh + int64_t(q0 + r) * d + c * Tiles::kElems) =
          *reinterpret_cast<const uint4*>(smem + kQTile + Tiles::Offset(r, c));
  }
}

template <typename T, int kD, int kBc, int kWarps, int kRowTiles, bool kCausal,
          bool kExact>
cudaError_t Launch(const AttentionShape& shape, const AttentionTensors& x,
                   int splits, cudaStream_t stream) {
  using Tiles = MmaTiles<T, kD, kBc, kWarps, kRowTiles>;
  auto kernel = FusedMmaKernel<T, kD, kBc, kWarps, kRowTiles, kCausal, kExact>;
  const int n = int(shape.seq_len);
  const int m_blocks = (n + Tiles::kBr - 1) / Tiles::kBr;
  const int64_t blocks = shape.BatchHeads() * m_blocks * splits;
  if (blocks > int64_t(INT32_MAX)) return cudaErrorInvalidValue;
  SplitKvPartials part;
  if (!SplitKvPartialsIn(shape, splits, x.workspace, &part)) return cudaErrorInvalidValue;
  if (cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tiles::kSmemBytes);
      e != cudaSuccess)
    return e;
  const float scale_log2 = SoftmaxScaleLog2(shape.head_dim);
  kernel<<<unsigned(blocks), Tiles::kThreads, Tiles::kSmemBytes, stream>>>(
      static_cast<const T*>(x.q), static_cast<const T*>(x.k),
      static_cast<const T*>(x.v), static_cast<T*>(x.o), n,
      int(shape.head_dim), m_blocks,
      scale_log2, part);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess || splits == 1) return e;
  return LaunchSplitKvCombine(shape, DTypeOf<T>(), splits, x.workspace, x.o, stream);
}

template <typename T, int kD, int kBc, int kWarps, int kRowTiles,
          bool kExact = true>
cudaError_t LaunchCausal(const AttentionShape& shape, const AttentionTensors& x,
                         int splits, cudaStream_t stream) {
  return shape.causal
             ? Launch<T, kD, kBc, kWarps, kRowTiles, true, kExact>(shape, x, splits,
                                                                   stream)
             : Launch<T, kD, kBc, kWarps, kRowTiles, false, kExact>(shape, x, splits,
                                                                    stream);
}

template <typename T>
cudaError_t LaunchTyped(const AttentionShape& shape, const AttentionTensors& x,
                        MmaConfig config, int splits, cudaStream_t stream) {
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

// fp32 (3xTF32) tilings, the one table of them: warps, row tiles and key
// tile by config at a head_dim of 64, 128 or 256. Shared memory holds Q,
// then K and V with their small planes (four key tiles): 128 query rows and
// keys of 64 at d = 128 are 192 KiB. d = 256 runs 8 warps of 16 rows for
// every config (O's accumulators are 128 registers a thread) with keys of
// 16 (192 KiB).
template <Tf32Config kConfigOf, int kD>
struct Tf32Tiling {
  static constexpr Tf32Config kConfig = kConfigOf;
  static constexpr bool kWide = kD == 256;
  static constexpr int kWarps = kWide || kConfigOf == Tf32Config::kWarps8Rows16 ? 8 : 4;
  static constexpr int kRowTiles = !kWide && kConfigOf == Tf32Config::kWarps4Rows32 ? 2 : 1;
  static constexpr int kBc = kWide ? 16
                             : kD == 64 || kConfigOf == Tf32Config::kWarps8Rows16 ? 64
                                                                                   : 32;
  static constexpr int kBr = 16 * kRowTiles * kWarps;
};

// f(Tf32Tiling<config, kD>{}, std::integral_constant<int, kD>{}) for the
// tiling of `config` at the padded head_dim (a padded one takes
// kWarps8Rows16's); returns what f returns.
template <typename F>
auto WithTf32Tiling(Tf32Config config, int64_t head_dim, F&& f) {
  const int padded = FusedPaddedHeadDim(head_dim);
  if (padded != head_dim) config = Tf32Config::kWarps8Rows16;
  auto at = [&](auto d_c) {
    constexpr int kD = decltype(d_c)::value;
    switch (config) {
      case Tf32Config::kWarps4Rows16:
        return f(Tf32Tiling<Tf32Config::kWarps4Rows16, kD>{}, d_c);
      case Tf32Config::kWarps4Rows32:
        return f(Tf32Tiling<Tf32Config::kWarps4Rows32, kD>{}, d_c);
      case Tf32Config::kWarps8Rows16: break;
    }
    return f(Tf32Tiling<Tf32Config::kWarps8Rows16, kD>{}, d_c);
  };
  if (padded == 64) return at(std::integral_constant<int, 64>{});
  if (padded == 128) return at(std::integral_constant<int, 128>{});
  return at(std::integral_constant<int, 256>{});
}

}  // namespace

Tf32Config Tf32ConfigFor(const AttentionShape& shape) {
  return shape.head_dim == 64 && !shape.causal ? Tf32Config::kWarps4Rows32
                                               : Tf32Config::kWarps8Rows16;
}

int Tf32KvTile(Tf32Config config, int64_t head_dim) {
  return WithTf32Tiling(config, head_dim, [](auto t, auto) { return decltype(t)::kBc; });
}

int Tf32QueryRows(Tf32Config config, int64_t head_dim) {
  return WithTf32Tiling(config, head_dim, [](auto t, auto) { return decltype(t)::kBr; });
}

SplitKvKernel Tf32SplitKvKernel(Tf32Config config, int64_t head_dim) {
  SplitKvKernel k;
  k.query_rows = Tf32QueryRows(config, head_dim);
  k.kv_tile = Tf32KvTile(config, head_dim);
  k.blocks_per_sm = FusedPaddedHeadDim(head_dim) <= 128 ? 2 : 1;
  k.item_keys = 16;
  k.combine_keys = 0;
  return k;
}

cudaError_t LaunchAttentionFusedTf32(const AttentionShape& shape,
                                     const AttentionTensors& tensors, Tf32Config config,
                                     int splits, cudaStream_t stream) {
  if (!FusedLaunchable(shape, splits)) return cudaErrorInvalidValue;
  const bool exact = FusedPaddedHeadDim(shape.head_dim) == shape.head_dim;
  return WithTf32Tiling(config, shape.head_dim, [&](auto t, auto d_c) {
    using T = decltype(t);
    constexpr int kD = decltype(d_c)::value;
    // A padded head_dim runs kWarps8Rows16's tiling only (WithTf32Tiling):
    // no other tiling is built for it.
    if constexpr (T::kConfig == Tf32Config::kWarps8Rows16)
      if (!exact)
        return LaunchCausal<float, kD, T::kBc, T::kWarps, T::kRowTiles, false>(
            shape, tensors, splits, stream);
    return LaunchCausal<float, kD, T::kBc, T::kWarps, T::kRowTiles, true>(shape, tensors,
                                                                          splits, stream);
  });
}

int MmaKvTile(MmaConfig config, int64_t head_dim) {
  const int padded = FusedPaddedHeadDim(head_dim);  // as LaunchTyped's templates
  if (padded == 256) return 64;
  if (padded != head_dim) config = kDefaultMmaConfig;
  const bool d64 = padded == 64;
  switch (config) {
    case MmaConfig::kWarps4Rows32: return d64 ? 128 : 64;
    case MmaConfig::kWarps8Rows16: return 64;
    case MmaConfig::kWarps4Rows32Narrow: return d64 ? 64 : 32;
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
                                    const AttentionTensors& tensors,
                                    MmaConfig config, int splits,
                                    cudaStream_t stream) {
  if (!FusedLaunchable(shape, splits)) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp16: return LaunchTyped<__half>(shape, tensors, config, splits, stream);
    case DType::kBf16:
      return LaunchTyped<__nv_bfloat16>(shape, tensors, config, splits,
                                             stream);
    case DType::kFp32: break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
