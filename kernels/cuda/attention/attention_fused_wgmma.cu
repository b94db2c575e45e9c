// Fused attention, fp16 and bf16, for Hopper (sm_90a) in FlashAttention-3's
// structure. What it changes over the mma.sync kernel (attention_fused_mma.cu):
//   - Warp specialisation. A block is a producer warpgroup, whose one
//     thread issues the tensor copy engine (TMA) for Q and for each K and V
//     tile, and consumer warpgroups of 64 query rows each: two (kBr = 128),
//     or at d = 64 three for most grids of many blocks (kBr = 192), where
//     the softmax costs as much as the products, and one (kBr = 64) for
//     grids too small to fill the SMs (WgmmaConsumers). The producer gives
//     most of its registers to the consumers (setmaxnreg: 24 against 240,
//     or 32 against 160 with three; one consumer has 255 without it).
//   - A persistent grid (WgmmaPersistent): one block per SM runs chunks of
//     work in turn (WgmmaSchedule), Q's slot and the pipeline running on
//     from one item to the next, so the next item's loads overlap this
//     one's last products and stores (and, with the consumers taking turns,
//     its first S this one's stores: kCrossItem); causal, a chunk is a
//     head's longest query block with its shortest, so chunks are equal
//     work. Where the last round of items would leave SMs idle (d = 128,
//     and d = 64 with two consumers, non-causal), its items' key tiles are
//     shared out evenly instead, an item's pieces merged by the last of
//     them to finish (WgmmaTailFor).
//   - A shared-memory pipeline of kStages K and kStages V slots with
//     mbarriers: a slot's "full" barrier completes when its bytes have
//     landed, its "empty" barrier when every consumer thread is done
//     with it (a K slot as soon as S is computed, before P V); the producer
//     runs up to kStages tiles ahead, K one tile ahead of V, so S = Q K^T
//     starts before V has arrived.
//   - wgmma: S = Q K^T with both operands read from shared memory by
//     descriptor, O += P V with P from registers (S's accumulators rounded to
//     the dtype are exactly the A operand) and V read transposed from shared
//     memory. Tiles are 128-byte swizzled by the copy engine and read through
//     the same swizzle (hopper_ptx.cuh).
//   - Softmax overlapped with the matrix products: within a consumer, S of
//     the next tile and P V of this one are issued before the softmax of
//     the next (intra-warpgroup pipelining); between the consumers, either
//     named barriers make them take turns to issue (ping-pong: one's
//     exponentials fill the other's matrix time) or the warp schedulers
//     interleave them freely (WgmmaConfig). The main loop has no branch
//     around a wgmma: ptxas then knows which group each wait leaves in
//     flight and keeps the wgmmas asynchronous (tests/wgmma_ptxas_check.sh).
//     But ptxas schedules the wait for P V early: in the SASS of the
//     d = 128 kernels of 176-key tiles (cuobjdump on the H200) only part
//     of the softmax's row maxima lies between the two waits, and its
//     exponentials come after the second: within a consumer little of the
//     softmax overlaps P V, and the rest overlaps the other consumer's
//     products.
//   - Head dims: tiles for 64, 96, 128 and 256 (kBc = 128; 128 or 176;
//     128 or 176; 80: WgmmaKvTile); a head dim between is padded up
//     (WgmmaHeadDim): the copy engine fills columns past d with zeros, and
//     only columns below d are stored. d = 96 keeps d = 128's two
//     64-column boxes a row in shared memory (the second half zeros) but
//     runs S over its 6 k-steps and P V with N = 96. P V is one wgmma a
//     k-step, N the whole head dim.
//   - O stored 16 bytes a lane: a consumer's accumulators hold 4-byte pairs
//     (quad lane qd: columns 2 qd and 2 qd + 1 of each 8-column block),
//     which the quad exchanges (ptx::QuadTranspose) so that each lane
//     stores one block's 8 columns, a quad 64 bytes of its row. Against
//     4-byte stores, measured on an H100 (bench, median of two rounds,
//     fp16 and bf16, causal or not): d = 256 N 512 1.17-1.18 times as fast
//     (B 32, H 8 fp16 0.1385 against 0.1619 ms), N 1024 1.13-1.15; d = 128
//     N 512 1.08-1.09, N 1024 1.05-1.08; d = 96 B 2, H 20, N 2048 1.04-1.05;
//     d = 64 N 512 and 1024 1.01-1.02; at N 4096 d = 256 1.04-1.05, d = 128
//     0.98-1.02, d = 64 0.996-1.005 (docs/perf/attention_trials.md, its
//     every point). ncu had read d = 256, N 512 with 4-byte stores as
//     waiting on global memory, lg_throttle among its top stalls.
//   - Any N: the copy engine fills rows past N with zeros; their keys are
//     masked to -inf and their queries never stored. Tiles of 176 keys end
//     at key N instead, so that the first tile is the short one: its rows
//     before key 0 are zeros (and masked), and its S is computed over the
//     tile's last keys alone, skipping a multiple of 32 of those before key
//     0 (a narrower wgmma into an array of its own, in the item's prologue;
//     P V still runs over the whole tile, P zero where S was skipped).
//     So the main loop's tiles there need no mask, and its softmax has
//     none: ptxas had turned the mask's branch into 178 selects and
//     compares run on every tile (ncu's SASS of the d = 128 kernel).
//     Without them the bench (median of seven, against the mask, one
//     call) was faster at all 16 points of d = 128 in 176-key tiles, 1%
//     at B 1, H 1, N 3000 (split five ways) and 2-6% at the others, 3.5%
//     in the geometric mean (B 4, H 16, N 4096 0.831 against
//     0.871 ms bf16, 0.865 against 0.900 fp16; B 1, H 4, N 4096 0.0588
//     against 0.0601 bf16).
//     Causal: key tiles wholly above the diagonal are never loaded; without
//     the persistent grid, query blocks run heaviest first.
//   - Split-KV (attention_split_kv.h) as the other fused kernels.
// Tried on the H200 and dropped (fp16/bf16, each in one call against this
// kernel; the bench's median of five or seven, or ncu's time at locked
// clocks):
//   - A short last key tile (N = 4096 in tiles of 176 leaves 48 keys, 8192
//     leaves 96) computed over 96 keys, S into an array of its own (a wgmma
//     into S's first columns, or S in wgmmas of more than one short size,
//     left ptxas short of registers and it serialised them, C7511; a
//     branch with a wgmma in flight, C7515 and C7520). It takes 1.6% of
//     the tensor cycles away at B 4, H 16, N 4096, d 128, but ncu timed it
//     1.066 against 1.045 ms (tensor active 71.5% against 74.1%): that
//     grid is persistent with one Q slot, the next item's Q loads only
//     once this item's last S is done, and ncu counted more waiting
//     instead (stall long_scoreboard 0.74 against 0.63 an issue, barrier
//     0.81 against 0.76). A block per item gained little: B 2, H 16, N 8192
//     1.939 against 1.954 ms. The bench put every shape within 2% either
//     way. Built into every tiling, it was 2-5% slower where no tile was
//     short (B 16, H 16, N 1024, d 128). Later, with the balanced tail:
//     the last tile's P V alone over its k-steps of keys below N (one
//     branch a count of k-steps after the main loop, each waiting for its
//     products: ptxas kept the wgmmas asynchronous) was no faster (bench,
//     median of three against this kernel): B 1, H 4, N 4096 0.0608
//     against 0.0604 ms (bf16 0.0599 against 0.0597), B 4, H 16, N 4096
//     0.921 against 0.912 (bf16 0.896 against 0.862). A short first tile
//     (tiles ending at key N) with its S written into S's own last columns
//     left ptxas serialising the wgmmas (C7511) and spilling; into an array
//     of its own it compiles clean, and runs (above). Measured in one call
//     (bench, median of five, fp16 then bf16, against the same tiles
//     unshifted): S skipping 32 keys at a time, as it runs, B 4, H 16,
//     N 4096 1.008 and 0.986 of 0.880 and 0.864 ms; B 2, H 16, N 8192 0.984
//     and 0.986 of 1.743 and 1.680; B 1, H 16, N 16384 0.983 and 0.967 of
//     3.455 and 3.408; B 2, H 8, N 2152 0.983 and 0.979; B 1, H 8, N 8192
//     0.998 and 0.990; B 1, H 1, N 3000 0.995 and 0.997; B 1, H 4, N 4096
//     1.001 and 1.002 (so that grid round's padding was not what it
//     waited for): 0.990 in the geometric mean. Every count of 16 keys
//     (ten branches): 0.995. Skipping 64 at a time in S and in the first
//     tile's P V too (a first iteration peeled from the main loop, one
//     copy a count): 0.989, no better; with every count of 16 in both, the
//     kernel's code grew from 47 to 243 KB and short items ran slower
//     (B 1, H 1, N 3000 1.142 and 1.165; B 1, H 4, N 4096 1.076 and
//     1.077; 1.039 in the geometric mean).
//   - The softmax of a thread's two rows interleaved step by step (both
//     rows' maxima, then their shuffles, then their exponentials), not one
//     row after the other: no faster (bench, median of three, 20 points
//     of d 64, 128 and 256 in fp16 and bf16: 0.3% slower in the geometric
//     mean; B 1, H 4, N 4096, d 128 0.0609 against 0.0602 ms).
//   - The mbarrier waits with a suspend-time hint (CUTLASS's 0x989680 ns):
//     on every wait, B 1, H 4, N 4096 was slower (0.0600 against 0.0592 ms
//     bf16, 0.0615 against 0.0608 fp16) and B 4, H 16, N 4096 faster
//     (0.841 against 0.878 bf16) but within the spread, the same 20 points
//     0.3% faster in the geometric mean; on the producer's waits alone, no
//     change (0.2%), and ncu counted 0.06% fewer instructions executed: the
//     hint did not keep the producer's waits from polling.
//   - One arrival a consumer warp on a slot's "empty" barrier, not one a
//     thread: 2-5% slower at d 64, N 512 and d 256 (B 4, H 32, N 4096,
//     d 64: 1.198 against 1.158 ms fp16; B 32, H 8, N 512, d 256: 0.168
//     against 0.160), no better at d 128.
//   - Each tile's wgmma descriptors built once and stepped by adding to
//     the start field, not built anew from each wgmma's address: in the
//     SASS of the d = 128 kernel of 176-key tiles (fp16, persistent),
//     ULOP3 261 to 169, USHF 135 to 29, UIADD3 191 to 167. The bench
//     (median of three rounds, fp16 then bf16, against this kernel, one
//     call): d = 256 causal B 4, H 8, N 4096 0.507 against 0.521 ms (bf16
//     0.489 against 0.495), but d = 64 causal B 16, H 32, N 1024 0.238
//     against 0.234 (bf16 0.238 against 0.233), and every d = 128 point
//     within 1% either way (B 4, H 16, N 4096 0.889 against 0.894; B 1,
//     H 4, N 4096 0.0608 against 0.0609). With the producer also sleeping
//     64 ns between polls of a slot's "empty" barrier (__nanosleep), the
//     d = 128 points 0-3% faster than this kernel (B 8, H 16, N 2048
//     0.457 against 0.470, the most; B 4, H 16, N 4096 0.891 against
//     0.894), within the rounds' spread of up to 3% there, and d = 64
//     still 2% slower. The sleep alone, in a second call (median of five
//     rounds against this kernel, the same 18 points): 0.997 to 1.015,
//     1.000 in the median: that gain was the spread, and the d = 64 loss
//     the descriptors'. Neither landed.
//   - Clusters of two blocks at d = 128 in 176-key tiles (FlashAttention-
//     3's for head dims of 128 and more, non-causal): neighbouring query
//     blocks of a head, each block's producer loading half of every K and
//     V tile into both blocks (TMA multicast), a slot's "empty" barrier
//     counting the other block's consumer warps too (remote arrivals), the
//     stream-K tail cut in runs of two items. Remote arrivals released at
//     cluster scope waited on a memory barrier each (ncu, fp16: B 1, H 4,
//     N 4096 73 against 59 us, stall membar 1.6 an issue; 13-24% slower
//     on the bench). Released at the block's scope (CUTLASS's), the bench
//     (median of five, 12 points of N 2048 to 16384, fp16 and bf16) put it
//     at 0.992 of this kernel in the geometric mean (0.966 to 1.006), and
//     ncu at B 4, H 16, N 4096 855 against 843 us: the L2 read 2.66
//     against 3.98 GB, but the tensor pipe was busy 71.4% against 73.7%,
//     each block now waiting for the slower of two. Clusters without the
//     multicast (each block its own tiles): 0.996.
//   - The next item's Q and first K and V tiles fetched into L2
//     (cp.async.bulk.prefetch.tensor) by a persistent producer of one Q
//     slot, whose next loads wait for this item's last S: at this item's
//     last K load 0.994 of this kernel, at its first 0.985 (bench, median
//     of seven, 14 points of d 128 N 2048 to 16384 and d 256 N 512 and
//     1024, fp16 and bf16; B 4, H 16, N 4096 1.022 fp16 but 0.985 bf16).
//   - The main loop of the other tilings in two loops, the tiles that need
//     no mask (before key N and this consumer's diagonal) and then those
//     that may, so that the mask's selects run only in the second (as
//     176-key tiles lost them, the top of this file): 1.001 of this kernel
//     in the geometric mean (bench, median of five, 36 points of d 64, 128
//     and 256, causal or not, fp16 and bf16, one call), from 0.952 (B 32,
//     H 32, N 512, d 64 causal fp16) to 1.045 (B 1, H 2, N 5000, d 256
//     causal bf16).
// Tolerance: fp16/bf16 1e-2 relative L2 (kernels/dtype.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cuda/attention/attention_fused_wgmma.h"
#include "kernels/cuda/attention/attention_ptx.cuh"
#include "kernels/cuda/attention/attention_split_kv.cuh"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "kernels/cuda/attention/hopper_ptx.cuh"
#include "kernels/cuda/attention/tensor_map.h"
#include "kernels/cuda/attention/wgmma_softmax.cuh"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

// The plan of a block: kConsumers warpgroups of 64 query rows after the
// producer's, and the shared memory of head dim kD with K/V tiles of kBc
// rows in kStages slots.
template <int kD, int kBc, int kStages, int kConsumers>
struct WgmmaTiles {
  static constexpr int kBr = 64 * kConsumers;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kConsumerThreads = 128 * kConsumers;
  // Registers after setmaxnreg (multiples of 8), as FlashAttention-3: the
  // producer gives up what the consumers take. A block is launched with
  // 65536 / kThreads registers a thread, rounded down to 8 (168 or 128),
  // and a consumer's setmaxnreg.inc waits until the pool has them: past
  // that sum the block would hang. One consumer has its registers without
  // it (kRealloc false: 256 threads launch with up to 255 each).
  static constexpr bool kRealloc = kConsumers > 1;
  static constexpr int kProducerRegs = kConsumers == 3 ? 32 : 24;
  static constexpr int kConsumerRegs = kConsumers == 3 ? 160 : 240;
  // (A kernel with a balanced tail asks for others, FusedWgmmaKernel.)
  static constexpr int kLaunchRegs = 65536 / kThreads / 8 * 8;
  static constexpr int kBoxes = (kD + 63) / 64;  // 64-column boxes of a row (d = 96: 2)
  static constexpr int kQBox = kBr * 128, kKVBox = kBc * 128;
  static constexpr int kQBytes = kBoxes * kQBox, kKVBytes = kBoxes * kKVBox;
  // Q slots: two where they fit beside the K/V stages (d = 64, and d = 96 and 128
  // with two stages of 128 keys, as its persistent grid runs), so that a
  // persistent block loads the next item's Q while this item still reads
  // its own; else one, which the next item's load waits for. Measured on
  // the H200 (fp16, persistent, median of three, against one slot and
  // d = 128's three stages): B 32, H 16, N 512, d 128 causal 0.130 against
  // 0.137 ms; B 16, H 32, N 1024, d 64 0.368 against 0.379.
  static constexpr int kKVStageBytes = 2 * kStages * kKVBytes;
  static constexpr int kBarBytesMost = 8 * (4 + 4 * kStages);
  static constexpr int kQSlots =
      2 * kQBytes + kKVStageBytes + kBarBytesMost + 1024 <= 227 * 1024 ? 2 : 1;
  static constexpr int kK = kQSlots * kQBytes;           // K slots
  static constexpr int kV = kK + kStages * kKVBytes;     // V slots
  static constexpr int kBars = kV + kStages * kKVBytes;  // mbarriers
  // per Q slot q_full and q_empty, then per K/V slot k_full, v_full,
  // k_empty, v_empty: 8 bytes each.
  static constexpr __host__ __device__ int QFull(int q) { return kBars + 8 * q; }
  static constexpr __host__ __device__ int QEmpty(int q) { return kBars + 8 * (kQSlots + q); }
  static constexpr __host__ __device__ int KFull(int s) { return kBars + 8 * (2 * kQSlots + s); }
  static constexpr __host__ __device__ int VFull(int s) { return KFull(kStages + s); }
  static constexpr __host__ __device__ int KEmpty(int s) { return KFull(2 * kStages + s); }
  static constexpr __host__ __device__ int VEmpty(int s) { return KFull(3 * kStages + s); }
  // + 1024: the dynamic base is aligned up to 1024 bytes (the swizzle's).
  static constexpr int kSmemBytes = kBars + 8 * (2 * kQSlots + 4 * kStages) + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "more shared memory than an SM has");
};

// One work item: the query block of head bh whose rows start at q0, over
// the key tiles [range.begin, range.end) of split `split`; bh and split are
// kept as one number, head_split = bh * splits + split (a register fewer
// through the main loop).
struct WgmmaItem {
  int head_split, q0;
  KvRange range;
};

// The chunks of a launch: with `paired` (causal, persistent), a chunk is
// query block m - 1 - p and then p of one head (p < m / 2: the longest with
// the shortest, together m + 1 blocks' rows' worth of keys), and with m odd
// the middle blocks of two heads make the last chunks; otherwise a chunk is
// one item. Times the splits either way.
__host__ __device__ inline int64_t WgmmaChunks(bool paired, int m_blocks, int64_t heads,
                                               int splits) {
  if (!paired) return heads * m_blocks * splits;
  return (heads * (m_blocks / 2) + (m_blocks % 2 ? (heads + 1) / 2 : 0)) * splits;
}

// The balanced tail of a launch (WgmmaTail, attention_fused_wgmma.h) and
// its workspace: counts [tail_items][warps] (int), then partials
// [tail_items][kWgmmaTailPieces][warps][kTailFloats][32] (float), a warp's
// lane-major so that its stores and loads are whole lines. A kernel that
// cannot have one (kTail below false) is passed none. Worked out on the
// host: the whole items' rounds of the grid (whole_items / gridDim.x) and
// the tail's units (tail_items times an item's key tiles; 0: no tail).
struct WgmmaTailArgs {
  int whole_items = 0, whole_rounds = 0, units = 0;
  int* counts = nullptr;
  float* partials = nullptr;
};
// Warps of a block's consumers that count pieces (two consumers of four).
constexpr int kTailWarps = 8;
// A lane's partial, laid out for d = 128: O's 64 accumulators (at d = 64
// the first 32 of them), then its rows' maxima and sums.
constexpr int kTailFloats = 64 + 4;

// The items a block runs, in order: block b of g takes chunks b, b + g,
// b + 2 g, ... (WgmmaChunks; a persistent grid has one block per SM, else g
// is the chunks and a block has one). Chunks run split-minor, then by query
// blocks (causal: the longest rows first), then by heads, so a wave of
// blocks shares its heads' K and V in L2. With a balanced tail (kTail and
// tail.units > 0), the first tail.whole_items items so, then block b's
// run of the tail's key tiles, item by item (NextPiece). Its only state is
// the count of items taken (the rest is the kernel's parameters): the
// registers are the main loop's.
template <int kBr, int kBc, bool kCausal, bool kTail>
struct WgmmaSchedule {
  int taken = 0;

  // The next item into *item; false when the block has none left. The
  // kernel's parameters (paired: kCausal and persistent, WgmmaChunks).
  __device__ bool Next(int n, int m_blocks, int heads, int splits, bool paired,
                       const WgmmaTailArgs& tail, WgmmaItem* item) {
    if constexpr (kTail) {
      if (tail.units > 0 && taken >= tail.whole_rounds) return NextPiece(n, m_blocks, tail, item);
    }
    const bool pairs = kCausal && paired;
    const int64_t chunks = WgmmaChunks(pairs, m_blocks, heads, splits);
    for (;;) {
      const int chunk = int(blockIdx.x) + (pairs ? taken / 2 : taken) * int(gridDim.x);
      const int second = pairs ? taken % 2 : 0;
      if (chunk >= chunks) return false;
      ++taken;
      const int split = chunk % splits, rest = chunk / splits;
      const int half = m_blocks / 2, in_pairs = pairs ? heads * half : 0;
      int bh, mb;
      if (!pairs) {
        bh = rest / m_blocks, mb = kCausal ? m_blocks - 1 - rest % m_blocks : rest % m_blocks;
      } else if (rest < in_pairs) {  // blocks m - 1 - p, then p
        bh = rest / half, mb = second ? rest % half : m_blocks - 1 - rest % half;
      } else {  // the middle blocks of heads 2 h, then 2 h + 1 (if any)
        bh = 2 * (rest - in_pairs) + second, mb = half;
        if (bh >= heads) continue;
      }
      item->head_split = bh * splits + split;
      item->q0 = mb * kBr;
      const int kv_end = kCausal ? min(n, item->q0 + kBr) : n;
      item->range = SplitKvRange((kv_end + kBc - 1) / kBc, splits, split);
      return true;
    }
  }

  // The tail's units are its items' key tiles in a row; block b of g runs
  // units [u b / g, u (b + 1) / g) of u, as pieces of one item each (u g
  // fits 31 bits, WgmmaTailFor).
  __device__ bool NextPiece(int n, int m_blocks, const WgmmaTailArgs& tail, WgmmaItem* item) {
    const int blocks = int(gridDim.x), block = int(blockIdx.x);
    const int piece = taken - tail.whole_rounds, tiles = (n + kBc - 1) / kBc;
    const int begin = tail.units * block / blocks, end = tail.units * (block + 1) / blocks;
    const int local = begin / tiles + piece, item_begin = local * tiles;
    const int at = max(begin, item_begin);  // the piece's first unit
    if (at >= end) return false;
    ++taken;
    const int index = tail.whole_items + local;
    item->head_split = index / m_blocks;
    item->q0 = index % m_blocks * kBr;
    item->range = {at - item_begin, min(end, item_begin + tiles) - item_begin};
    return true;
  }

  // Next, for a whole warp: the item and the answer broadcast from lane 0.
  // Every lane computes the same, but integer division runs on the vector
  // datapath, and ptxas then treats what follows from it as varying across
  // the warp: the pipeline's place, carried from item to item, moved to
  // vector registers, and every wgmma descriptor built from it went back
  // through R2UR. A shuffle from a constant lane is known to be uniform
  // (CUTLASS's canonical_warp_idx_sync does the same).
  __device__ bool NextInWarp(int n, int m_blocks, int heads, int splits, bool paired,
                             const WgmmaTailArgs& tail, WgmmaItem* item) {
    const bool more = __shfl_sync(~0u, Next(n, m_blocks, heads, splits, paired, tail, item), 0);
    item->head_split = __shfl_sync(~0u, item->head_split, 0);
    item->q0 = __shfl_sync(~0u, item->q0, 0);
    item->range.begin = __shfl_sync(~0u, item->range.begin, 0);
    item->range.end = __shfl_sync(~0u, item->range.end, 0);
    return more;
  }
};

// Whether a kernel of these tiles can run a balanced tail (WgmmaTailFor
// says where one runs, within this).
__host__ __device__ constexpr bool WgmmaTailRuns(int d, int bc, int consumers, bool causal,
                                                 bool persistent) {
  return ((d == 128 && bc == 176) || (d == 64 && bc == 128)) && consumers == 2 && !causal &&
         persistent;
}

// kPersistent (WgmmaPersistent): the block runs its items in turn; else
// it has one, and the loops over items below run once, which the compiler
// folds away: the pipeline's places are then constants where the main loop
// starts, and its wgmma descriptors stay in uniform registers (carried over
// items, ptxas moved them to vector registers and back, R2UR, before every
// wgmma: the main loop ran 7-14% slower at d = 128 and 256 on the H200;
// NextInWarp's broadcast keeps them uniform. In the SASS of the d = 128
// kernels with 176-key tiles, cuobjdump, the two main loops are now the
// same, 840 instructions with 19 HGMMA and no R2UR; the persistent
// kernel's other R2UR, 50 against 18, lie outside it).
// kCrossItem (persistent, two consumers taking turns, two Q slots): a
// consumer issues the next item's first S with this item's last P V, in
// the same turn, and stores this item's O while that S runs; the next item
// then starts at its second tile. With one Q slot the next item's Q would
// land only after this one's last S, too late. Measured on the H200 (fp16,
// median of four, against the first S issued after the store): B 16, H
// 32, N 1024, d 64 causal 0.229 against 0.248 ms; B 16, H 16, N 1024,
// d 128 0.262 against 0.270. Free consumers lost with it (B 32, H 32,
// N 512, d 64 causal 0.180 against 0.157, median of three), so they run
// without it (LaunchGrid).
template <typename T, int kD, int kBc, int kStages, int kConsumers, bool kCausal, bool kPersistent,
          bool kCrossItem>
__global__ void __launch_bounds__(WgmmaTiles<kD, kBc, kStages, kConsumers>::kThreads, 1)
    FusedWgmmaKernel(const __grid_constant__ CUtensorMap map_q,
                     const __grid_constant__ CUtensorMap map_k,
                     const __grid_constant__ CUtensorMap map_v, T* __restrict__ o, int n, int d,
                     int m_blocks, int heads, float scale_log2, SplitKvPartials part,
                     WgmmaTailArgs tail, bool pingpong, bool paired) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Tiles = WgmmaTiles<kD, kBc, kStages, kConsumers>;
  constexpr int kBr = Tiles::kBr, kConsumerThreads = Tiles::kConsumerThreads;
  constexpr bool kTail = WgmmaTailRuns(kD, kBc, kConsumers, kCausal, kPersistent);
  // kShortFirst: 176-key tiles end at key N, so the first tile, not the
  // last, is short: it starts pad keys before key 0 (the copy engine fills
  // those rows with zeros), and an item's first S skips as many of them as
  // whole steps of kSkipStep k-steps (32 keys) cover (the top of this
  // file: why not every count of 16).
  constexpr bool kShortFirst = kBc == 176;
  constexpr int kSkipStep = 2;
  static_assert(!kShortFirst || (!kCausal && !kCrossItem), "kShortFirst: non-causal, one Q slot");
  const int pad = kShortFirst ? (n + kBc - 1) / kBc * kBc - n : 0;
  static_assert(!kTail || (kD / 2 + 4 <= kTailFloats && kConsumers * 4 == kTailWarps),
                "a tail's partials are laid out for two consumers at d = 128");
  // A kernel that can run a tail gives its producer 32 registers, not 24:
  // with 24, ptxas spilled the tail's schedule (NextPiece) to local memory.
  // Its consumers have 232, and ptxas spills none of them either.
  constexpr int kProducerRegs = kTail ? 32 : Tiles::kProducerRegs;
  constexpr int kConsumerRegs = kTail ? 232 : Tiles::kConsumerRegs;
  static_assert(kProducerRegs + kConsumers * kConsumerRegs <= (1 + kConsumers) * Tiles::kLaunchRegs,
                "setmaxnreg asks for more registers than the block was launched with");
  static_assert(!kCrossItem || (kPersistent && kConsumers == 2 && Tiles::kQSlots == 2),
                "kCrossItem: persistent, two consumers, two Q slots");
  extern __shared__ unsigned char smem_raw[];
  const uint32_t base = (ptx::SharedAddress(smem_raw) + 1023) & ~1023u;
  // The warpgroup, broadcast from lane 0 so that ptxas knows it is uniform
  // (as CUTLASS's canonical_warp_group_idx): the consumers' Q descriptors
  // are built from it.
  const int tid = threadIdx.x, wg = __shfl_sync(~0u, tid / 128, 0);

  if (tid == 0) {
    for (int q = 0; q < Tiles::kQSlots; ++q) {
      hopper::BarrierInit(base + Tiles::QFull(q), 1);
      hopper::BarrierInit(base + Tiles::QEmpty(q), kConsumerThreads);
    }
    for (int s = 0; s < kStages; ++s) {
      hopper::BarrierInit(base + Tiles::KFull(s), 1);
      hopper::BarrierInit(base + Tiles::VFull(s), 1);
      hopper::BarrierInit(base + Tiles::KEmpty(s), kConsumerThreads);
      hopper::BarrierInit(base + Tiles::VEmpty(s), kConsumerThreads);
    }
    hopper::BarrierInitFence();
  }
  __syncthreads();

  // Both sides count the items (u) this block has been through and step
  // the pipeline's place: the phases of Q's barriers and the slots run on
  // across items, so the producer loads the next item's Q and first tiles
  // while the consumers finish this one.
  if (wg == 0) {  // the producer
    if constexpr (Tiles::kRealloc) hopper::RegDealloc<kProducerRegs>();
    if (tid != 0) return;
    hopper::TmaPrefetchMap(&map_q);
    hopper::TmaPrefetchMap(&map_k);
    hopper::TmaPrefetchMap(&map_v);
    // Tile j's slot once its last reader is done with it; K runs a tile
    // ahead of V (the consumers need K_{j+1} before V_j).
    auto load = [&](const CUtensorMap* map, int slots, int full, int empty,
                    hopper::PipeSlot<kStages> at, int j, int bh) {
      const int s = at.Slot();
      hopper::BarrierWait(base + empty + 8 * s, at.Phase() ^ 1);
      hopper::BarrierArriveExpect(base + full + 8 * s, Tiles::kKVBytes);
      for (int b = 0; b < Tiles::kBoxes; ++b)
        hopper::TmaLoad3d(base + slots + s * Tiles::kKVBytes + b * Tiles::kKVBox, map,
                          base + full + 8 * s, b * 64, j * kBc - pad, bh);
    };
    hopper::PipeSlot<kStages> at;  // K's next place (V's is the one before)
    WgmmaSchedule<kBr, kBc, kCausal, kTail> schedule;
    WgmmaItem item;
    for (int u = 0; (kPersistent || u == 0) &&
                    schedule.Next(n, m_blocks, heads, part.splits, paired, tail, &item);
         ++u) {
      // Item u's Q slot and its barriers' phase.
      const int qs = u % Tiles::kQSlots;
      const uint32_t q_phase = (u / Tiles::kQSlots) & 1;
      hopper::BarrierWait(base + Tiles::QEmpty(qs), q_phase ^ 1);
      hopper::BarrierArriveExpect(base + Tiles::QFull(qs), Tiles::kQBytes);
      for (int b = 0; b < Tiles::kBoxes; ++b)
        hopper::TmaLoad3d(base + qs * Tiles::kQBytes + b * Tiles::kQBox, &map_q,
                          base + Tiles::QFull(qs), b * 64, item.q0, item.head_split / part.splits);
      const KvRange range = item.range;
      const int bh = item.head_split / part.splits;
      for (int j = range.begin; j < range.end; ++j) {
        load(&map_k, Tiles::kK, Tiles::KFull(0), Tiles::KEmpty(0), at, j, bh);
        if (j > range.begin)
          load(&map_v, Tiles::kV, Tiles::VFull(0), Tiles::VEmpty(0), at.Prev(), j - 1, bh);
        at = at.Next();
      }
      if (range.begin < range.end)
        load(&map_v, Tiles::kV, Tiles::VFull(0), Tiles::VEmpty(0), at.Prev(), range.end - 1, bh);
    }
    return;
  }

  // A consumer: query rows 64 c..64 c + 63 of each item's block.
  if constexpr (Tiles::kRealloc) hopper::RegAlloc<kConsumerRegs>();
  const int c = wg - 1, ct = tid - 128 * wg;
  const int w = ct / 32, g = ct % 32 / 4, qd = ct % 4;
  // kEarlyNext: a persistent consumer takes its next item while this one's
  // first S runs on the tensor cores, not between the two items. Measured
  // on the H200 (fp16, persistent, median of three, early against after
  // the item): B 16, H 32, N 1024, d 64 0.344 against 0.369 ms; B 32, H 32,
  // N 512, d 64 0.199 against 0.202; B 32, H 8, N 512, d 256 0.160 against
  // 0.163; but d = 128 lost (B 32, H 16, N 512 0.162 against 0.157), so
  // there (and at d = 96, which has its tiles) a consumer takes its next
  // item once this one is stored, unless kCrossItem needs it before the
  // item's last tile.
  constexpr bool kEarlyNext = (kD != 96 && kD != 128) || kCrossItem;
  WgmmaSchedule<kBr, kBc, kCausal, kTail> schedule;
  WgmmaItem item, next{};
  hopper::PipeSlot<kStages> at;  // the place of the next item's first tile
  // Item u's Q slot (as the producer's), its barriers' phase, and this
  // consumer's 64 rows of it.
  auto q_slot = [](int u) { return u % Tiles::kQSlots; };
  auto q_phase = [](int u) { return uint32_t(u / Tiles::kQSlots) & 1; };
  auto q_tile = [&](int u) { return base + q_slot(u) * Tiles::kQBytes + 64 * c * 128; };

  // O of this thread's rows: one wgmma's accumulators, N the whole head
  // dim (at d = 256 one wgmma of N 256 a k-step, not two of 128).
  float acc_o[kD / 2];
  float row_max[2], row_sum[2];
  auto reset = [&] {
#pragma unroll
    for (int e = 0; e < kD / 2; ++e) acc_o[e] = 0;
    row_max[0] = row_max[1] = -INFINITY;
    row_sum[0] = row_sum[1] = 0;
  };

  // S = Q K_j^T of the Q tile at q_tile and the last kCols keys of the K
  // tile in slot s (acc's columns; all kBc but in a short first tile),
  // issued (not waited for).
  auto issue_s = [&](auto& acc, uint32_t q, int s) {
    constexpr int kCols = 2 * int(sizeof(acc) / sizeof(float));
    const uint32_t k_tile = base + Tiles::kK + s * Tiles::kKVBytes + (kBc - kCols) * 128;
    hopper::WgmmaFence();
    ptx::StaticFor<0, kD / 16>([&](auto kk_c) {
      constexpr int kk = decltype(kk_c)::value;
      constexpr int kOffQ = (kk / 4) * Tiles::kQBox + (kk % 4) * 32;
      constexpr int kOffK = (kk / 4) * Tiles::kKVBox + (kk % 4) * 32;
      hopper::WgmmaSS<T, kCols>(acc, hopper::Descriptor(q + kOffQ, 16, 1024),
                                hopper::Descriptor(k_tile + kOffK, 16, 1024), kk > 0);
    });
    hopper::WgmmaCommit();
  };

  // Mask and online softmax of S (kCols keys from key kb) of the item whose
  // rows start at q0, in place (fp32): keys before 0 or past N and (causal)
  // keys after the query become -inf; element 4 nb + 2 h + e of row row0 +
  // 8 h holds key kb + 8 nb + 2 qd + e. alpha: how much O's rows shrink.
  // Without `may_mask` no key of the tile is masked (the caller knows).
  auto softmax = [&](auto& acc_s, int kb, int q0, float(&alpha)[2], auto may_mask) {
    constexpr int kCols = 2 * int(sizeof(acc_s) / sizeof(float));
    const int row0 = q0 + 64 * c + 16 * w + g;
    if (decltype(may_mask)::value &&
        (kb < 0 || kb + kCols > n || (kCausal && kb + kCols - 1 > q0 + 64 * c))) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int begin = -kb - 2 * qd;
        const int end = (kCausal ? min(n, row0 + 8 * h + 1) : n) - kb - 2 * qd;
#pragma unroll
        for (int nb = 0; nb < kCols / 8; ++nb)
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (nb * 8 + e < begin || nb * 8 + e >= end) acc_s[4 * nb + 2 * h + e] = -INFINITY;
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
      alpha[h] = OnlineSoftmaxRow<kCols>(acc_s, h, scale_log2, row_max[h], row_sum[h]);
  };
  // P in the dtype: S's accumulators of keys 16 kk..16 kk + 15 are P's A
  // operand of k-step kk; S of the tile's last keys alone (a short first
  // tile) leaves P zero before them, so that P V runs over the whole tile.
  uint32_t pa[kBc / 16][4];
  auto to_p = [&](const auto& acc_s) {
    constexpr int kSkip = kBc / 16 - int(sizeof(acc_s) / sizeof(float)) / 8;
#pragma unroll
    for (int kk = 0; kk < kBc / 16; ++kk)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        pa[kk][r] = kk < kSkip ? 0u
                               : ptx::PackPair<T>(acc_s[8 * (kk - kSkip) + 2 * r],
                                                  acc_s[8 * (kk - kSkip) + 2 * r + 1]);
  };
  float alpha[2];  // of the last softmax
  // O = alpha O + P_j V_j, issued (the rescale runs while the tensor cores
  // compute the S just issued).
  auto issue_pv = [&](hopper::PipeSlot<kStages> p) {
    const int s = p.Slot();
#pragma unroll
    for (int e = 0; e < kD / 2; ++e) acc_o[e] *= alpha[(e / 2) % 2];
    hopper::BarrierWait(base + Tiles::VFull(s), p.Phase());
    const uint32_t v_tile = base + Tiles::kV + s * Tiles::kKVBytes;
    hopper::WgmmaFence();
    ptx::StaticFor<0, kBc / 16>([&](auto kk_c) {
      constexpr int kk = decltype(kk_c)::value;
      hopper::WgmmaRS<T, kD>(acc_o, pa[kk],
                             hopper::Descriptor(v_tile + kk * 16 * 128, Tiles::kKVBox, 1024), 1);
    });
    hopper::WgmmaCommit();
  };

  // Ping-pong (WgmmaConfig::kPingPong): the consumers take turns to issue
  // their matrix products, named barrier 1 + c being consumer c's turn, so
  // that one's products run while the other computes its softmax. Both run
  // the same items and tiles, so the same turns: consumer 1 opens consumer
  // 0's first turn, each passes every turn it ends, and consumer 0 takes
  // consumer 1's last pass at the end, so every arrival has its wait.
  const bool turns = kConsumers == 2 && pingpong;
  if (turns && c == 1) hopper::NamedBarrierArrive(1, kConsumerThreads);
  auto turn_begin = [&] {
    if (turns) hopper::NamedBarrierSync(1 + c, kConsumerThreads);
  };
  auto turn_end = [&] {
    if (turns) hopper::NamedBarrierArrive(2 - c, kConsumerThreads);
  };

  // primed: the item's first S was issued with the last item's last P V,
  // and its softmax is done (kCrossItem).
  bool primed = false;
  bool more = schedule.NextInWarp(n, m_blocks, heads, part.splits, paired, tail, &item);
  for (int u = 0; more; ++u) {
    bool next_more = false;
    // S of a tile, an item's own: the wgmma reads its accumulators, so
    // declared outside the loop over items they would stay live from one
    // item to the next.
    float acc_s[kBc / 2];
    auto take_next = [&] {
      if (kPersistent && kEarlyNext)
        next_more = schedule.NextInWarp(n, m_blocks, heads, part.splits, paired, tail, &next);
    };
    const int q0 = item.q0;
    const KvRange range = item.range;
    const bool tiles = range.begin < range.end;
    // This item's Q tile, once an item: worked out inside issue_s, Q's
    // descriptors were rebuilt between the first S's wgmmas (1.5-3% slower
    // at N = 512, d = 64, measured on the H200).
    const uint32_t q_this = q_tile(u);

    // The pipeline of a consumer, FlashAttention-3's intra-warpgroup
    // overlap: while O += P_j V_j runs on the tensor cores, S_{j+1} (issued
    // just before it) is waited for and its softmax computed; O's rescale by
    // softmax j's alpha runs while S_{j+1} is being computed.
    if (!primed) {
      reset();
      hopper::BarrierWait(base + Tiles::QFull(q_slot(u)), q_phase(u));
      if (tiles) {
        hopper::BarrierWait(base + Tiles::KFull(at.Slot()), at.Phase());
        turn_begin();
        // S over the tile's keys from 16 skipped on (O is zero: the softmax's
        // rescale changes nothing). A branch a count of k-steps, each
        // waiting for its products, so that no wgmma is in flight where
        // they meet.
        auto first = [&](auto& acc, int skipped) {
          issue_s(acc, q_this, at.Slot());
          turn_end();
          take_next();
          hopper::WgmmaWait<0>();
          hopper::FenceRegisters(acc);
          hopper::BarrierArrive(base + Tiles::KEmpty(at.Slot()));
          softmax(acc, range.begin * kBc - pad + 16 * skipped, q0, alpha, std::true_type{});
          to_p(acc);
        };
        const int skip = kShortFirst && range.begin == 0 ? pad / (16 * kSkipStep) * kSkipStep : 0;
        if (kShortFirst && skip > 0) {
          ptx::StaticFor<1, kShortFirst ? kBc / 16 / kSkipStep + 1 : 1>([&](auto step_c) {
            constexpr int kSkip = kSkipStep * decltype(step_c)::value;
            if (skip == kSkip) {
              float acc_short[(kBc - 16 * kSkip) / 2];
              first(acc_short, kSkip);
            }
          });
        } else {
          first(acc_s, 0);
        }
      } else {
        take_next();
      }
    } else {
      take_next();
    }
    // Every tile but the last, in straight-line code (a branch around the
    // issue of S would leave ptxas unsure which group wait<1> leaves in
    // flight, and it would serialise every wgmma: warning C7514).
    for (int j = range.begin; j + 1 < range.end; ++j) {
      const hopper::PipeSlot<kStages> next_at = at.Next();
      hopper::BarrierWait(base + Tiles::KFull(next_at.Slot()), next_at.Phase());
      turn_begin();
      issue_s(acc_s, q_this, next_at.Slot());
      issue_pv(at);
      turn_end();
      hopper::WgmmaWait<1>();  // S_{j+1} is done; P_j V_j may still run
      hopper::FenceRegisters(acc_s);
      hopper::BarrierArrive(base + Tiles::KEmpty(next_at.Slot()));
      // (Tiles that end at key N, kShortFirst, mask only an item's first,
      // which is not here: see the top of this file.)
      softmax(acc_s, (j + 1) * kBc - pad, q0, alpha, std::bool_constant<!kShortFirst>{});
      hopper::WgmmaWait<0>();
      hopper::FenceRegisters(acc_o);
      hopper::BarrierArrive(base + Tiles::VEmpty(at.Slot()));
      to_p(acc_s);
      at = next_at;
    }
    // Every S is done: Q's slot is free for a later item's.
    hopper::BarrierArrive(base + Tiles::QEmpty(q_slot(u)));
    // O / row sum: to the output in the dtype, or (split) fp32 partials and
    // the row's lse.
    auto store = [&] {
      const int64_t rows = int64_t(heads) * n;
      const int bh = item.head_split / part.splits, split = item.head_split % part.splits;
      const int64_t first_row = split * rows + int64_t(bh) * n;
      const int row0 = q0 + 64 * c + 16 * w + g;  // + 8 h: this thread's rows
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float total = row_sum[h];
        total += __shfl_xor_sync(~0u, total, 1);
        total += __shfl_xor_sync(~0u, total, 2);
        const float inv = total > 0 ? 1.0f / total : 0.0f;
        const int r = row0 + 8 * h;
        if (part.splits > 1) {
          if (r >= n) continue;
          float* po = part.o + (first_row + r) * d + 2 * qd;
#pragma unroll
          for (int nb = 0; nb < kD / 8; ++nb)
            if (nb * 8 < d)
              *reinterpret_cast<float2*>(po + nb * 8) =
                  make_float2(acc_o[4 * nb + 2 * h] * inv, acc_o[4 * nb + 2 * h + 1] * inv);
          if (qd == 0) part.lse[first_row + r] = SplitKvLse(row_max[h], total, scale_log2);
        } else {
          // 16-byte stores: each group of four 8-column blocks transposed
          // within the quad (ptx::QuadTranspose: every lane of the warp,
          // rows past N too), so that lane qd stores block 4 m + qd whole,
          // a quad 64 contiguous bytes of its row, where 4-byte pairs took
          // four times the store instructions.
          static_assert(kD % 32 == 0, "O is stored in groups of four 8-column blocks");
          T* out = o + (int64_t(bh) * n + r) * d;
#pragma unroll
          for (int m = 0; m < kD / 32; ++m) {
            uint32_t pairs[4];
#pragma unroll
            for (int k = 0; k < 4; ++k)
              pairs[k] = ptx::PackPair<T>(acc_o[4 * (4 * m + k) + 2 * h] * inv,
                                          acc_o[4 * (4 * m + k) + 2 * h + 1] * inv);
            ptx::QuadTranspose(pairs, qd);
            const int col = 8 * (4 * m + qd);
            if (r < n && col < d)
              *reinterpret_cast<uint4*>(out + col) =
                  make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
          }
        }
      }
    };
    // A piece of a tail item (kTail): true when this warp stores the item's
    // O, its rows merged from every piece. The piece writes its partial
    // (unless the item's other pieces have all counted theirs), then counts
    // itself on its warp's counter; the piece that counts last merges the
    // others' partials into its own and sets the counter back to zero.
    // The partials' fences before each count and after the last one's make
    // them visible to it (CUDA's threadFenceReduction pattern).
    auto last_piece = [&]() -> bool {
      const int tiles = (n + kBc - 1) / kBc;
      if (range.begin == 0 && range.end == tiles) return true;  // a whole item
      const int lane = ct % 32, warp = c * 4 + w;
      const int local = item.head_split * m_blocks + q0 / kBr - tail.whole_items;
      const int first_unit = local * tiles;
      // The block whose run holds unit u (NextPiece's runs, inverted).
      auto block_of = [&](int u) { return ((u + 1) * int(gridDim.x) - 1) / tail.units; };
      const int first = block_of(first_unit);
      const int pieces = block_of(first_unit + tiles - 1) - first + 1;
      const int piece = int(blockIdx.x) - first;
      auto slot = [&](int p) {
        return tail.partials +
               ((int64_t(local) * kWgmmaTailPieces + p) * kTailWarps + warp) * kTailFloats * 32 +
               lane;
      };
      int* count = tail.counts + local * kTailWarps + warp;
      int counted = lane == 0 ? atomicAdd(count, 0) : 0;
      counted = __shfl_sync(~0u, counted, 0);
      if (counted < pieces - 1) {
        float* mine = slot(piece);
#pragma unroll
        for (int e = 0; e < kD / 2; ++e) __stcg(mine + e * 32, acc_o[e]);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          __stcg(mine + (kTailFloats - 4 + h) * 32, row_max[h]);
          __stcg(mine + (kTailFloats - 2 + h) * 32, row_sum[h]);
        }
        __threadfence();
        __syncwarp();
        counted = lane == 0 ? atomicAdd(count, 1) : 0;
        counted = __shfl_sync(~0u, counted, 0);
        if (counted < pieces - 1) return false;  // a later piece merges this one
      }
      __threadfence();
      for (int p = 0; p < pieces; ++p) {
        if (p == piece) continue;
        const float* theirs = slot(p);
        float a_mine[2], a_theirs[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float max_theirs = __ldcg(theirs + (kTailFloats - 4 + h) * 32);
          const float sum_theirs = __ldcg(theirs + (kTailFloats - 2 + h) * 32);
          const float m = fmaxf(row_max[h], max_theirs);
          const float shift = m == -INFINITY ? 0.0f : m * scale_log2;
          a_mine[h] = ptx::Exp2(row_max[h] * scale_log2 - shift);
          a_theirs[h] = ptx::Exp2(max_theirs * scale_log2 - shift);
          row_sum[h] = row_sum[h] * a_mine[h] + sum_theirs * a_theirs[h];
          row_max[h] = m;
        }
#pragma unroll
        for (int e = 0; e < kD / 2; ++e)
          acc_o[e] =
              fmaf(acc_o[e], a_mine[(e / 2) % 2], __ldcg(theirs + e * 32) * a_theirs[(e / 2) % 2]);
      }
      if (lane == 0) *count = 0;  // for the next launch
      return true;
    };
    // The last tile: P V alone, or (kCrossItem) with the next item's first
    // S, which then runs while O is stored. That S is issued whenever this
    // item has tiles, and every wait of the tile is in this one branch, so
    // that ptxas knows which group each wait leaves in flight (see above);
    // when there is no next item with tiles the S reads whatever the slots
    // hold and its result is dropped.
    bool primes = false;
    if (tiles) {
      const hopper::PipeSlot<kStages> first = at.Next();  // the next item's first tile
      if constexpr (kCrossItem) {
        primes = next_more && next.range.begin < next.range.end;
        if (primes) {
          hopper::BarrierWait(base + Tiles::QFull(q_slot(u + 1)), q_phase(u + 1));
          hopper::BarrierWait(base + Tiles::KFull(first.Slot()), first.Phase());
        }
      }
      turn_begin();
      issue_pv(at);
      if constexpr (kCrossItem) issue_s(acc_s, q_tile(u + 1), first.Slot());
      turn_end();
      hopper::WgmmaWait<kCrossItem ? 1 : 0>();  // P V is done
      hopper::FenceRegisters(acc_o);
      hopper::BarrierArrive(base + Tiles::VEmpty(at.Slot()));
      at = first;
      if constexpr (kCrossItem) {
        if (!kTail || tail.units == 0 || last_piece()) store();
        hopper::WgmmaWait<0>();
        hopper::FenceRegisters(acc_s);
        if (primes) {
          hopper::BarrierArrive(base + Tiles::KEmpty(at.Slot()));
          reset();
          softmax(acc_s, next.range.begin * kBc - pad, next.q0, alpha, std::true_type{});
          to_p(acc_s);
        }
      }
    }
    // (Without kCrossItem the one store after the branch: storing in both
    // branches measured 3% slower at d = 256, B 32, H 8, N 512.)
    if (!kCrossItem || !tiles) {
      if constexpr (kTail) {
        if (tail.units == 0 || last_piece()) store();
      } else {
        store();
      }
    }
    primed = primes;
    if (kEarlyNext) {
      item = next;
      more = next_more;
    } else {
      more =
          kPersistent && schedule.NextInWarp(n, m_blocks, heads, part.splits, paired, tail, &item);
    }
  }
  if (turns && c == 0) hopper::NamedBarrierSync(1, kConsumerThreads);  // consumer 1's last pass
#endif
}

template <typename T, int kD, int kBc, int kStages, int kConsumers, bool kCausal, bool kPersistent>
cudaError_t LaunchGrid(const AttentionShape& shape, const AttentionTensors& x, int splits, int sms,
                       WgmmaConfig config, const WgmmaTail& tail, cudaStream_t stream) {
  using Tiles = WgmmaTiles<kD, kBc, kStages, kConsumers>;
  constexpr int kBr = Tiles::kBr;
  constexpr bool kCanCross = kPersistent && kConsumers == 2 && Tiles::kQSlots == 2;
  auto kernel =
      kCanCross && config == WgmmaConfig::kPingPong
          ? FusedWgmmaKernel<T, kD, kBc, kStages, kConsumers, kCausal, kPersistent, kCanCross>
          : FusedWgmmaKernel<T, kD, kBc, kStages, kConsumers, kCausal, kPersistent, false>;
  const int n = int(shape.seq_len), d = int(shape.head_dim);
  const int m_blocks = (n + kBr - 1) / kBr;
  const int64_t items = shape.BatchHeads() * m_blocks * splits;
  if (items > int64_t(INT32_MAX) || shape.BatchHeads() > INT32_MAX) return cudaErrorInvalidValue;
  const int64_t chunks = WgmmaChunks(kCausal && kPersistent, m_blocks, shape.BatchHeads(), splits);
  // A tail's runs are one a block of sms (NextPiece).
  const int64_t blocks = !kPersistent          ? chunks
                         : tail.tail_items > 0 ? sms
                                               : std::min<int64_t>(chunks, sms);
  SplitKvPartials part;
  if (!SplitKvPartialsIn(shape, splits, x.workspace, &part)) return cudaErrorInvalidValue;
  WgmmaTailArgs tail_args;
  if (tail.tail_items > 0) {
    if (!WgmmaTailRuns(kD, kBc, kConsumers, kCausal, kPersistent) || x.workspace == nullptr)
      return cudaErrorInvalidValue;
    tail_args.whole_items = tail.whole_items;
    tail_args.whole_rounds = tail.whole_items / sms;
    tail_args.units = tail.tail_items * ((n + kBc - 1) / kBc);
    tail_args.counts = static_cast<int*>(x.workspace);
    tail_args.partials =
        reinterpret_cast<float*>(static_cast<char*>(x.workspace) + WgmmaTailCounterBytes(tail));
  }
  CUtensorMap map_q, map_k, map_v;
  const DType dtype = DTypeOf<T>();
  const int64_t bh = shape.BatchHeads();
  for (cudaError_t e : {EncodeTensorMap(&map_q, dtype, x.q, d, n, bh, kBr),
                        EncodeTensorMap(&map_k, dtype, x.k, d, n, bh, kBc),
                        EncodeTensorMap(&map_v, dtype, x.v, d, n, bh, kBc)})
    if (e != cudaSuccess) return e;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           Tiles::kSmemBytes);
      e != cudaSuccess)
    return e;
  const float scale_log2 = SoftmaxScaleLog2(shape.head_dim);
  kernel<<<unsigned(blocks), Tiles::kThreads, Tiles::kSmemBytes, stream>>>(
      map_q, map_k, map_v, static_cast<T*>(x.o), n, d, m_blocks, int(shape.BatchHeads()),
      scale_log2, part, tail_args, config == WgmmaConfig::kPingPong, kPersistent && kCausal);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess || splits == 1) return e;
  return LaunchSplitKvCombine(shape, dtype, splits, x.workspace, x.o, stream);
}

// kStages K/V stages a block per item, kPersistentStages persistent (fewer
// where that leaves room for a second Q slot, WgmmaTiles::kQSlots).
template <typename T, int kD, int kBc, int kStages, int kPersistentStages, int kConsumers,
          bool kCausal>
cudaError_t Launch(const AttentionShape& shape, const AttentionTensors& x, int splits, int sms,
                   WgmmaConfig config, bool balanced_tail, cudaStream_t stream) {
  const WgmmaGrid grid = WgmmaGridFor(shape, splits, sms, balanced_tail);
  return grid.persistent ? LaunchGrid<T, kD, kBc, kPersistentStages, kConsumers, kCausal, true>(
                               shape, x, splits, sms, config, grid.tail, stream)
                         : LaunchGrid<T, kD, kBc, kStages, kConsumers, kCausal, false>(
                               shape, x, splits, sms, config, grid.tail, stream);
}

template <typename T, int kD, int kBc, int kStages, int kPersistentStages, int kConsumers>
cudaError_t LaunchCausal(const AttentionShape& shape, const AttentionTensors& x, int splits,
                         int sms, WgmmaConfig config, bool balanced_tail, cudaStream_t stream) {
  return shape.causal ? Launch<T, kD, kBc, kStages, kPersistentStages, kConsumers, true>(
                            shape, x, splits, sms, config, balanced_tail, stream)
                      : Launch<T, kD, kBc, kStages, kPersistentStages, kConsumers, false>(
                            shape, x, splits, sms, config, balanced_tail, stream);
}

// d = 96 and 128: 176-key tiles (non-causal only) or 128 (WgmmaKvTile).
template <typename T, int kD>
cudaError_t LaunchKvTile(const AttentionShape& shape, const AttentionTensors& x, int splits,
                         int sms, WgmmaConfig config, bool balanced_tail, cudaStream_t stream) {
  if (WgmmaKvTile(shape) == 176)
    return Launch<T, kD, 176, 2, 2, 2, false>(shape, x, splits, sms, config, balanced_tail, stream);
  return LaunchCausal<T, kD, 128, 3, 2, 2>(shape, x, splits, sms, config, balanced_tail, stream);
}

template <typename T>
cudaError_t LaunchTyped(const AttentionShape& shape, const AttentionTensors& x, int splits,
                        WgmmaConfig config, bool balanced_tail, cudaStream_t stream) {
  int device = 0, sms = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      e != cudaSuccess)
    return e;
  switch (WgmmaHeadDim(shape.head_dim)) {
    case 64:
      switch (WgmmaConsumers(shape, sms)) {
        case 1:
          return LaunchCausal<T, 64, 128, 4, 4, 1>(shape, x, splits, sms, config, balanced_tail,
                                                   stream);
        case 3:
          return LaunchCausal<T, 64, 128, 4, 4, 3>(shape, x, splits, sms, config, balanced_tail,
                                                   stream);
      }
      return LaunchCausal<T, 64, 128, 4, 4, 2>(shape, x, splits, sms, config, balanced_tail,
                                               stream);
    case 96:  // d = 128's tiles, over 6 k-steps of S and P V's N of 96
      return LaunchKvTile<T, 96>(shape, x, splits, sms, config, balanced_tail, stream);
    case 128:
      return LaunchKvTile<T, 128>(shape, x, splits, sms, config, balanced_tail, stream);
    case 256:
      return LaunchCausal<T, 256, 80, 2, 2, 2>(shape, x, splits, sms, config, balanced_tail,
                                               stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

int WgmmaHeadDim(int64_t head_dim) {
  return head_dim <= 64 ? 64 : head_dim <= 96 ? 96 : head_dim <= 128 ? 128 : 256;
}

int WgmmaKvTile(const AttentionShape& shape) {  // as LaunchTyped
  switch (WgmmaHeadDim(shape.head_dim)) {
    case 256:
      return 80;
    case 96:
    case 128:
      return !shape.causal && shape.seq_len >= 2048 ? 176 : 128;
  }
  return 128;
}

int WgmmaConsumers(const AttentionShape& shape, int num_sms) {
  if (WgmmaHeadDim(shape.head_dim) != 64) return 2;
  // (In closed form: this runs on every launch, where the split-KV rule's
  // model of the grid would cost tens of microseconds.)
  const int64_t blocks_of_128 = shape.BatchHeads() * ((shape.seq_len + 127) / 128);
  const int64_t blocks_of_64 = shape.BatchHeads() * ((shape.seq_len + 63) / 64);
  if (shape.seq_len <= 1024 && 2 * blocks_of_128 <= num_sms && 2 * blocks_of_64 > num_sms) return 1;
  const int64_t blocks_of_192 = shape.BatchHeads() * ((shape.seq_len + 191) / 192);
  const bool rows =
      shape.causal ? shape.seq_len >= 8192 : shape.seq_len >= 2048 || shape.seq_len <= 512;
  return rows && blocks_of_192 >= 4 * int64_t(num_sms) ? 3 : 2;
}

int WgmmaQueryRows(const AttentionShape& shape, int num_sms) {
  return 64 * WgmmaConsumers(shape, num_sms);
}

WgmmaConfig WgmmaConfigFor(const AttentionShape& shape) {
  const int d = WgmmaHeadDim(shape.head_dim);
  const bool few_tiles = shape.seq_len <= 512 ? d > 64 || !shape.causal
                                              : shape.causal && shape.seq_len <= 1024 && d > 128;
  return few_tiles ? WgmmaConfig::kFree : WgmmaConfig::kPingPong;
}

SplitKvKernel WgmmaSplitKvKernel(const AttentionShape& shape, int num_sms) {
  SplitKvKernel k;
  k.query_rows = WgmmaQueryRows(shape, num_sms);
  k.kv_tile = WgmmaKvTile(shape);
  k.blocks_per_sm = 1;
  k.item_keys = kWgmmaItemKeys;
  k.combine_keys = kWgmmaCombineKeys;
  return k;
}

bool WgmmaPersistent(const AttentionShape& shape, int splits, int num_sms) {
  if (num_sms < 1 || splits < 1) return false;
  // Short items: an item's keys (on average, causal) times the padded head
  // dim squared at most 2^26 (16384 keys at d = 64, 4096 at 128, 1024 at
  // 256).
  const int64_t keys = (shape.seq_len + splits - 1) / splits;
  const int64_t d = WgmmaHeadDim(shape.head_dim);
  if ((shape.causal ? keys / 2 : keys) * d * d > (int64_t(1) << 26)) return false;
  const int rows = WgmmaQueryRows(shape, num_sms);
  const int64_t chunks =
      WgmmaChunks(shape.causal, int((shape.seq_len + rows - 1) / rows), shape.BatchHeads(), splits);
  const int64_t rounds = (chunks + num_sms - 1) / num_sms;
  const bool one_item = !shape.causal && rounds == 1;                // no block has a next item
  return !one_item && 10 * chunks >= 9 * rounds * int64_t(num_sms);  // >= 0.9 rounds
}

WgmmaTail WgmmaTailFor(const AttentionShape& shape, int splits, int num_sms) {
  // Items of at least 2048 keys: shorter ones are too few key tiles for
  // the pieces' start and merge. Measured on an H100 at d = 64 (bench,
  // median of four rounds, with a tail against without, fp16 and bf16): B 1,
  // H 8, N 8192 (64 tiles an item) 0.306 against 0.317 ms and 0.306
  // against 0.316, but B 16, H 32, N 1024 (8 tiles) 0.342 against 0.336
  // and 0.342 against 0.335 (docs/perf/attention_trials.md).
  const int d = WgmmaHeadDim(shape.head_dim);
  if (num_sms < 1 || splits != 1 || shape.causal || shape.seq_len < 2048 ||
      !WgmmaTailRuns(d, WgmmaKvTile(shape), WgmmaConsumers(shape, num_sms), false, true))
    return {};
  const int64_t rows = WgmmaQueryRows(shape, num_sms);
  const int64_t items = shape.BatchHeads() * ((shape.seq_len + rows - 1) / rows);
  const int64_t last = items % num_sms, rounds = (items + num_sms - 1) / num_sms;
  // The last round's idle SMs at least 2% of the grid's, and a tail of at
  // least half a round (so that a run is at least half an item, and an item
  // at most kWgmmaTailPieces pieces).
  if (last == 0 || 50 * (num_sms - last) < rounds * num_sms) return {};
  const int64_t tail = 2 * last >= num_sms ? last : last + num_sms;
  if (items - tail < num_sms) return {};  // a round of whole items first
  const int64_t kv_tile = WgmmaKvTile(shape), tiles = (shape.seq_len + kv_tile - 1) / kv_tile;
  // (The kernel counts the tail's key tiles times the SMs in 31 bits.)
  if (items > INT32_MAX || (tail * tiles + 1) * num_sms > INT32_MAX) return {};
  return {int(items - tail), int(tail)};
}

int64_t WgmmaTailCounterBytes(const WgmmaTail& tail) {
  const int64_t bytes = int64_t(tail.tail_items) * kTailWarps * sizeof(int);
  return (bytes + 255) / 256 * 256;  // the partials after them aligned
}

int64_t WgmmaTailWorkspaceBytes(const WgmmaTail& tail) {
  if (tail.tail_items == 0) return 0;
  return WgmmaTailCounterBytes(tail) + int64_t(tail.tail_items) * kWgmmaTailPieces * kTailWarps *
                                           kTailFloats * 32 * sizeof(float);
}

WgmmaGrid WgmmaGridFor(const AttentionShape& shape, int splits, int num_sms, bool balanced_tail) {
  WgmmaGrid grid;
  if (balanced_tail) grid.tail = WgmmaTailFor(shape, splits, num_sms);
  grid.persistent = grid.tail.tail_items > 0 || WgmmaPersistent(shape, splits, num_sms);
  return grid;
}

bool WgmmaAttentionRuns(DType dtype) {
  return (dtype == DType::kFp16 || dtype == DType::kBf16) && Sm90aDevice();
}

bool Sm90aDevice() {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return false;
  return major == 9 && minor == 0;
}

cudaError_t LaunchAttentionFusedWgmma(const AttentionShape& shape, DType dtype,
                                      const AttentionTensors& tensors, int splits,
                                      WgmmaConfig config, bool balanced_tail, cudaStream_t stream) {
  if (!FusedLaunchable(shape, splits)) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp16:
      return LaunchTyped<__half>(shape, tensors, splits, config, balanced_tail, stream);
    case DType::kBf16:
      return LaunchTyped<__nv_bfloat16>(shape, tensors, splits, config, balanced_tail, stream);
    case DType::kFp32:
    case DType::kFp8:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
