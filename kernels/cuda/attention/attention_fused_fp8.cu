// Fused attention for fp8 inputs on Hopper (sm_90a): attention_fused_fp8.h
// says what it computes and why V is transposed first. The kernel is
// attention_fused_wgmma.cu's structure cut to one tiling, with FP8 wgmma:
//   - a producer warpgroup, whose one thread issues the copy engine for Q
//     and each K and V^T tile into kStages slots (K a tile ahead of V), and
//     two consumer warpgroups of 64 query rows, taking turns to issue their
//     matrix products (ping-pong: one's softmax overlaps the other's
//     products) and, within each, S of the next tile issued with P V of
//     this one before this one's softmax is waited for;
//   - S = Q K^T, both read from shared memory (K-major, 128-byte rows: the
//     head dim padded to 128 bytes), in k-steps of 32;
//   - the online softmax in fp32 with FlashAttention-3's offset: P =
//     2^(s - max + 8), so P lies in [0, 256] and small probabilities stay
//     in E4M3's normal range (down to 2^-14 of the row's largest, not 2^-6);
//     the row sum carries the same 2^8, so O / sum is unchanged;
//   - P rounded to E4M3 in registers (cvt.rn.satfinite), four accumulators
//     to a register as they lie: the V^T pass ordered the keys to match
//     (Fp8VtKey), so there is no shuffle;
//   - O = sum P V^T-read-K-major, fp32, then O * kFp8InputScale / sum in
//     bf16 (V's scale; Q's and K's are in the softmax's scale).
// Tolerance: kernels/attention/tolerances.cc (the fp8 bound, derived for
// this kernel's roundings).
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>

#include "kernels/cuda/attention/attention_fused_fp8.h"
#include "kernels/cuda/attention/attention_fused_wgmma.h"
#include "kernels/cuda/attention/attention_ptx.cuh"
#include "kernels/cuda/attention/attention_split_kv.cuh"
#include "kernels/cuda/attention/fp8_operands.cuh"
#include "kernels/cuda/attention/hopper_ptx.cuh"
#include "kernels/cuda/attention/tensor_map.h"
#include "kernels/cuda/attention/wgmma_softmax.cuh"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {
namespace {

// ---- the V^T pass -------------------------------------------------------------

// Keys a block of the pass moves: one group of 32 (Fp8VtKey's unit; a key
// tile holds 7), read whole, written as 32-byte runs of each V^T row.
constexpr int kVtChunk = 32;
constexpr int kVtThreads = 256;
constexpr int kVtGroups = kFp8KvTile / kVtChunk;
static_assert(kFp8KvTile % kVtChunk == 0 && kFp8VtAtomKeys % kVtChunk == 0,
              "a group of 32 keys lies in one atom");

// V^T of the layout attention_fused_fp8.h states, 0 past key n. Block b:
// head bh = b / chunks, keys kVtChunk * (b % chunks) on. d is a multiple
// of 16.
__global__ void __launch_bounds__(kVtThreads)
    TransposeVKernel(const uint8_t* __restrict__ v, uint8_t* __restrict__ vt, int n, int d,
                     int atoms, int chunks) {
  __shared__ __align__(16) uint8_t tile[kVtChunk][128 + 4];  // + 4: rows on different banks
  const int64_t bh = blockIdx.x / chunks;
  const int chunk = int(blockIdx.x % chunks), k0 = chunk * kVtChunk;
  const int words = d / 4;
  const uint8_t* src = v + (bh * n + k0) * d;
  for (int i = threadIdx.x; i < kVtChunk * words; i += kVtThreads) {
    const int key = i / words, w = i % words;
    const uint32_t x =
        k0 + key < n ? reinterpret_cast<const uint32_t*>(src + int64_t(key) * d)[w] : 0u;
    *reinterpret_cast<uint32_t*>(&tile[key][4 * w]) = x;
  }
  __syncthreads();
  // The group's place: tile t = chunk / kVtGroups, keys 32 g.. of it.
  const int in_tile = kVtChunk * (chunk % kVtGroups);
  const int64_t atom = kFp8VtAtomsPerTile * (chunk / kVtGroups) + in_tile / kFp8VtAtomKeys;
  uint8_t* dst = vt + (bh * atoms + atom) * d * kFp8VtAtomKeys + in_tile % kFp8VtAtomKeys;
  constexpr int kQuads = kVtChunk / 4;
  for (int i = threadIdx.x; i < d * kQuads; i += kVtThreads) {
    const int c = i / kQuads, p = 4 * (i % kQuads);
    uint32_t x = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) x |= uint32_t(tile[Fp8VtKey(p + j)][c]) << (8 * j);
    *reinterpret_cast<uint32_t*>(dst + int64_t(c) * kFp8VtAtomKeys + p) = x;
  }
}

// ---- the kernel -----------------------------------------------------------------

constexpr int kD = 128;  // the tiles' head dim: a row of 128 bytes
constexpr int kBr = kFp8QueryRows, kBc = kFp8KvTile;
constexpr int kStages = 3;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers), kConsumerThreads = 128 * kConsumers;
// setmaxnreg as the fp16/bf16 kernel's two consumers: 24 + 2 * 240 is the
// 3 * 168 a thread that 384 threads launch with.
constexpr int kProducerRegs = 24, kConsumerRegs = 240;
static_assert(kProducerRegs + kConsumers * kConsumerRegs <=
                  (1 + kConsumers) * (65536 / kThreads / 8 * 8),
              "setmaxnreg asks for more registers than the block was launched with");
// A V^T tile: two atoms of [kD rows][128 bytes] (rows past d zero-filled).
constexpr int kVAtomBytes = kD * kFp8VtAtomKeys;
constexpr int kQBytes = kBr * kD, kKBytes = kBc * kD, kVBytes = kFp8VtAtomsPerTile * kVAtomBytes;
static_assert(kBc <= kFp8VtAtomsPerTile * kFp8VtAtomKeys, "a key tile fits its atoms");
// Shared memory from its 1024-aligned base: Q, the K slots, the V^T slots,
// then the mbarriers (8 bytes each): Q's full, then per slot K full, V
// full, K empty, V empty.
constexpr int kK = kQBytes, kV = kK + kStages * kKBytes, kBars = kV + kStages * kVBytes;
__device__ constexpr int QFull() { return kBars; }
__device__ constexpr int KFull(int s) { return kBars + 8 * (1 + s); }
__device__ constexpr int VFull(int s) { return KFull(kStages + s); }
__device__ constexpr int KEmpty(int s) { return KFull(2 * kStages + s); }
__device__ constexpr int VEmpty(int s) { return KFull(3 * kStages + s); }
constexpr int kSmemBytes = kBars + 8 * (1 + 4 * kStages) + 1024;
static_assert(kSmemBytes <= 227 * 1024, "more shared memory than an SM has");

// Block b: head b / m_blocks, query block b % m_blocks (causal: from the
// last, the heaviest, down). scale_log2: the softmax's, times Q's and K's
// scales.
template <bool kCausal>
__global__ void __launch_bounds__(kThreads, 1)
    FusedFp8Kernel(const __grid_constant__ CUtensorMap map_q,
                   const __grid_constant__ CUtensorMap map_k,
                   const __grid_constant__ CUtensorMap map_vt, __nv_bfloat16* __restrict__ o, int n,
                   int d, int m_blocks, int vt_atoms, float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ unsigned char smem_raw[];
  const uint32_t base = (ptx::SharedAddress(smem_raw) + 1023) & ~1023u;
  const int tid = threadIdx.x, wg = __shfl_sync(~0u, tid / 128, 0);
  const int bh = int(blockIdx.x) / m_blocks, in_head = int(blockIdx.x) % m_blocks;
  const int q0 = (kCausal ? m_blocks - 1 - in_head : in_head) * kBr;
  const int tiles = ((kCausal ? min(n, q0 + kBr) : n) + kBc - 1) / kBc;  // >= 1

  if (tid == 0) {
    hopper::BarrierInit(base + QFull(), 1);
    for (int s = 0; s < kStages; ++s) {
      hopper::BarrierInit(base + KFull(s), 1);
      hopper::BarrierInit(base + VFull(s), 1);
      hopper::BarrierInit(base + KEmpty(s), kConsumerThreads);
      hopper::BarrierInit(base + VEmpty(s), kConsumerThreads);
    }
    hopper::BarrierInitFence();
  }
  __syncthreads();

  if (wg == 0) {  // the producer
    hopper::RegDealloc<kProducerRegs>();
    if (tid != 0) return;
    hopper::TmaPrefetchMap(&map_q);
    hopper::TmaPrefetchMap(&map_k);
    hopper::TmaPrefetchMap(&map_vt);
    hopper::BarrierArriveExpect(base + QFull(), kQBytes);
    hopper::TmaLoad3d(base, &map_q, base + QFull(), 0, q0, bh);
    // Tile j into the slot of `at` once its last reader is done with it.
    auto load_k = [&](hopper::PipeSlot<kStages> at, int j) {
      const int s = at.Slot();
      hopper::BarrierWait(base + KEmpty(s), at.Phase() ^ 1);
      hopper::BarrierArriveExpect(base + KFull(s), kKBytes);
      hopper::TmaLoad3d(base + kK + s * kKBytes, &map_k, base + KFull(s), 0, j * kBc, bh);
    };
    auto load_v = [&](hopper::PipeSlot<kStages> at, int j) {
      const int s = at.Slot();
      hopper::BarrierWait(base + VEmpty(s), at.Phase() ^ 1);
      hopper::BarrierArriveExpect(base + VFull(s), kVBytes);
      for (int a = 0; a < kFp8VtAtomsPerTile; ++a)
        hopper::TmaLoad3d(base + kV + s * kVBytes + a * kVAtomBytes, &map_vt, base + VFull(s), 0, 0,
                          bh * vt_atoms + kFp8VtAtomsPerTile * j + a);
    };
    hopper::PipeSlot<kStages> at;  // K's next place (V's is the one before)
    for (int j = 0; j < tiles; ++j) {
      load_k(at, j);
      if (j > 0) load_v(at.Prev(), j - 1);
      at = at.Next();
    }
    load_v(at.Prev(), tiles - 1);
    return;
  }

  // A consumer: query rows q0 + 64 c..q0 + 64 c + 63.
  hopper::RegAlloc<kConsumerRegs>();
  const int c = wg - 1, ct = tid - 128 * wg;
  const int w = ct / 32, g = ct % 32 / 4, qd = ct % 4;
  const uint32_t q_tile = base + 64 * c * kD;
  float acc_o[kD / 2], acc_s[kBc / 2];
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0, 0};
#pragma unroll
  for (int e = 0; e < kD / 2; ++e) acc_o[e] = 0;

  // S = Q K^T of the K tile in slot s, issued (not waited for).
  auto issue_s = [&](int s) {
    const uint32_t k_tile = base + kK + s * kKBytes;
    hopper::WgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kD / 32; ++kk)
      hopper::WgmmaSSFp8<kBc>(acc_s, hopper::Descriptor(q_tile + 32 * kk, 16, 1024),
                              hopper::Descriptor(k_tile + 32 * kk, 16, 1024), kk > 0);
    hopper::WgmmaCommit();
  };

  // Mask and online softmax of S (keys kb..kb + kBc - 1), in place: keys
  // past N and (causal) after the query become -inf; element 4 nb + 2 h + e
  // of row row0 + 8 h holds key kb + 8 nb + 2 qd + e. alpha: how much O's
  // rows shrink.
  float alpha[2];
  auto softmax = [&](int kb) {
    const int row0 = q0 + 64 * c + 16 * w + g;
    if (kb + kBc > n || (kCausal && kb + kBc - 1 > q0 + 64 * c)) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int end = (kCausal ? min(n, row0 + 8 * h + 1) : n) - kb - 2 * qd;
#pragma unroll
        for (int nb = 0; nb < kBc / 8; ++nb)
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (nb * 8 + e >= end) acc_s[4 * nb + 2 * h + e] = -INFINITY;
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
      alpha[h] = OnlineSoftmaxRow<kBc, 8>(acc_s, h, scale_log2, row_max[h], row_sum[h]);
  };

  // P in E4M3, k-step kk's A operand in pa[kk].
  uint32_t pa[kBc / 32][4];
  auto to_p = [&] { AccumulatorsToFp8A<kBc>(acc_s, pa); };

  // O = alpha O + P V, issued, V^T in the slot of `at`.
  auto issue_pv = [&](hopper::PipeSlot<kStages> at) {
    const int s = at.Slot();
#pragma unroll
    for (int e = 0; e < kD / 2; ++e) acc_o[e] *= alpha[(e / 2) % 2];
    hopper::BarrierWait(base + VFull(s), at.Phase());
    const uint32_t vt_tile = base + kV + s * kVBytes;
    hopper::WgmmaFence();
#pragma unroll
    for (int kk = 0; kk < kBc / 32; ++kk)
      hopper::WgmmaRSFp8<kD>(acc_o, pa[kk],
                             hopper::Descriptor(vt_tile + (32 * kk / kFp8VtAtomKeys) * kVAtomBytes +
                                                    32 * kk % kFp8VtAtomKeys,
                                                16, 1024),
                             1);
    hopper::WgmmaCommit();
  };

  // Ping-pong as the fp16/bf16 kernel's (named barrier 1 + c is consumer
  // c's turn; consumer 1 opens consumer 0's first, consumer 0 takes
  // consumer 1's last pass at the end).
  if (c == 1) hopper::NamedBarrierArrive(1, kConsumerThreads);
  auto turn_begin = [&] { hopper::NamedBarrierSync(1 + c, kConsumerThreads); };
  auto turn_end = [&] { hopper::NamedBarrierArrive(2 - c, kConsumerThreads); };

  hopper::PipeSlot<kStages> at;
  hopper::BarrierWait(base + QFull(), 0);
  hopper::BarrierWait(base + KFull(at.Slot()), at.Phase());
  turn_begin();
  issue_s(at.Slot());
  turn_end();
  hopper::WgmmaWait<0>();
  hopper::FenceRegisters(acc_s);
  hopper::BarrierArrive(base + KEmpty(at.Slot()));
  softmax(0);
  to_p();
  for (int j = 0; j + 1 < tiles; ++j) {
    const hopper::PipeSlot<kStages> next = at.Next();
    hopper::BarrierWait(base + KFull(next.Slot()), next.Phase());
    turn_begin();
    issue_s(next.Slot());
    issue_pv(at);
    turn_end();
    hopper::WgmmaWait<1>();  // S of tile j + 1 is done; P V of tile j may still run
    hopper::FenceRegisters(acc_s);
    hopper::BarrierArrive(base + KEmpty(next.Slot()));
    softmax((j + 1) * kBc);
    hopper::WgmmaWait<0>();
    hopper::FenceRegisters(acc_o);
    hopper::BarrierArrive(base + VEmpty(at.Slot()));
    to_p();
    at = next;
  }
  turn_begin();
  issue_pv(at);
  turn_end();
  hopper::WgmmaWait<0>();
  hopper::FenceRegisters(acc_o);
  hopper::BarrierArrive(base + VEmpty(at.Slot()));

  // O * V's scale / row sum, in bf16, columns below d.
  const int row0 = q0 + 64 * c + 16 * w + g;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float total = row_sum[h];
    total += __shfl_xor_sync(~0u, total, 1);
    total += __shfl_xor_sync(~0u, total, 2);
    const float inv = total > 0 ? kFp8InputScale / total : 0.0f;
    const int r = row0 + 8 * h;
    if (r >= n) continue;
    __nv_bfloat16* out = o + (int64_t(bh) * n + r) * d + 2 * qd;
#pragma unroll
    for (int nb = 0; nb < kD / 8; ++nb)
      if (nb * 8 < d)
        *reinterpret_cast<uint32_t*>(out + nb * 8) = ptx::PackPair<__nv_bfloat16>(
            acc_o[4 * nb + 2 * h] * inv, acc_o[4 * nb + 2 * h + 1] * inv);
  }
  if (c == 0) hopper::NamedBarrierSync(1, kConsumerThreads);  // consumer 1's last pass
#endif
}

template <bool kCausal>
cudaError_t LaunchKernel(const AttentionShape& shape, const AttentionTensors& x, int vt_atoms,
                         cudaStream_t stream) {
  const int n = int(shape.seq_len), d = int(shape.head_dim);
  const int m_blocks = (n + kBr - 1) / kBr;
  const int64_t bh = shape.BatchHeads(), blocks = bh * m_blocks;
  if (blocks > INT32_MAX || bh * vt_atoms > INT32_MAX) return cudaErrorInvalidValue;
  CUtensorMap map_q, map_k, map_vt;
  for (cudaError_t e :
       {EncodeTensorMap(&map_q, DType::kFp8, x.q, d, n, bh, kBr),
        EncodeTensorMap(&map_k, DType::kFp8, x.k, d, n, bh, kBc),
        EncodeTensorMap(&map_vt, DType::kFp8, x.workspace, kFp8VtAtomKeys, d, bh * vt_atoms, kD)})
    if (e != cudaSuccess) return e;
  auto kernel = FusedFp8Kernel<kCausal>;
  if (cudaError_t e =
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
      e != cudaSuccess)
    return e;
  const float scale_log2 = SoftmaxScaleLog2(shape.head_dim) * kFp8InputScale * kFp8InputScale;
  kernel<<<unsigned(blocks), kThreads, kSmemBytes, stream>>>(
      map_q, map_k, map_vt, static_cast<__nv_bfloat16*>(x.o), n, d, m_blocks, vt_atoms, scale_log2);
  return cudaGetLastError();
}

int64_t KeyTiles(const AttentionShape& shape) { return (shape.seq_len + kBc - 1) / kBc; }

}  // namespace

int64_t Fp8FusedWorkspaceBytes(const AttentionShape& shape) {
  const int64_t bytes =
      shape.BatchHeads() * KeyTiles(shape) * kFp8VtAtomsPerTile * shape.head_dim * kFp8VtAtomKeys;
  return (bytes + 255) / 256 * 256;
}

cudaError_t LaunchAttentionFusedFp8(const AttentionShape& shape, const AttentionTensors& tensors,
                                    cudaStream_t stream) {
  if (!FusedFp8Supports(shape.head_dim) || !FusedLaunchable(shape, 1) ||
      tensors.workspace == nullptr)
    return cudaErrorInvalidValue;
  if (!Sm90aDevice()) return cudaErrorNotSupported;
  const int64_t tiles = KeyTiles(shape), chunks = tiles * kVtGroups;
  const int64_t atoms = tiles * kFp8VtAtomsPerTile;
  if (shape.BatchHeads() * chunks > INT32_MAX) return cudaErrorInvalidValue;
  TransposeVKernel<<<unsigned(shape.BatchHeads() * chunks), kVtThreads, 0, stream>>>(
      static_cast<const uint8_t*>(tensors.v), static_cast<uint8_t*>(tensors.workspace),
      int(shape.seq_len), int(shape.head_dim), int(atoms), int(chunks));
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return shape.causal ? LaunchKernel<true>(shape, tensors, int(atoms), stream)
                      : LaunchKernel<false>(shape, tensors, int(atoms), stream);
}

}  // namespace kbench::kernels::cuda
