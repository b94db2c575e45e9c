// The Hopper fused attention kernel (attention_fused_wgmma.cu: TMA, mbarrier
// pipeline, warp specialisation, wgmma), fp16 and bf16, built for sm_90a.
// LaunchAttentionFused (attention.h) runs it whenever WgmmaAttentionRuns
// says the device can; the server and tests call that.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// True when the current device has compute capability 9.0: the sm_90a
// kernels (this one, attention_fused_fp8.h's) run on no other.
bool Sm90aDevice();
// True when the current device runs this kernel for `dtype`: fp16 or bf16 on
// an Sm90aDevice.
bool WgmmaAttentionRuns(DType dtype);

// The head dim the kernel is tiled for: 64, 96, 128 or 256, the least of
// them at least head_dim (a head dim between is padded up: the copy engine
// fills the columns past it with zeros, and only columns below it are
// stored). 96 has tiles of its own: d = 128's key tiles and shared memory
// (two 64-column boxes a row, the second half zeros), but S over 6 k-steps
// and P V with N = 96, where padding to 128 cost a third more products.
// Measured on an H100 (bench, median of two rounds against d padded to
// 128, fp16 and bf16, causal or not): 1.055 to 1.131 times as fast at all
// 24 points, 1.086 in the geometric mean (B 2, H 20, N 2048 fp16 0.1274
// against 0.1394 ms; B 16, H 16, N 1024 0.2161 against 0.2432; d = 80,
// B 2, H 16, N 4096 0.3627 against 0.3827).
int WgmmaHeadDim(int64_t head_dim);

// Key rows of one K/V tile: 80 at d = 256 (head dims padded to 256), 128 at
// d = 64, and at d = 96 and 128 176 for non-causal rows of N >= 2048 (two
// K/V stages then fill shared memory), else 128, as FlashAttention-3's
// tiles for d = 128 (128 x 176, causal 128 x 128) and d = 256 (128 x 80:
// Q's 64 KB and two stages of 40 KB K and V tiles fill 224 KB). At d = 256,
// 80 against the 64 it had (P V also one wgmma of N 256 a k-step, not two
// of 128), measured on an H100 (bench, median of two rounds, fp16 and
// bf16, causal or not, the 24 points of the FlashAttention grid and
// B 1, H 2, N 5000 and B 1, H 1, N 8192): 1.05 to 1.10 times as fast at
// N >= 1024 (B 1, H 8, N 16384 fp16 3.037 against 3.347 ms; B 4, H 8,
// N 4096 0.781 against 0.841), but causal N = 1024 1.01 to 1.02 and N = 512
// 0.99 (B 32, H 8, 0.1620 against 0.1597 ms): 1.057 in the geometric mean
// over 32 points (the tiles alone, P V in two wgmmas: 1.055). Measured on the H200 (fp16,
// one block per item, median of three, 176 against 128 keys): B 2, H 16,
// N 8192 1.700 against 1.813 ms; B 4, H 16, N 4096 0.891 against 0.919;
// B 8, H 16, N 2048 0.487 against 0.493; but B 16, H 16, N 1024 0.263
// either way. In one grid round too (B 1, H 4, N 4096, 128 blocks, no
// padding with 128; median of three): 0.0603 against 0.0612 (bf16 0.0592
// against 0.0599). Causal keeps 128, FlashAttention-3's choice (176 is not
// built causal, so not measured there). At N = 4096, 176-key tiles pad the
// keys to 4224, 3% more products: ncu timed cuDNN's kernel (tiles of 128
// keys, cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_
// 64x128x128) at B 4, H 16, fp16 1.022 against this kernel's 1.050 ms with
// its tensor pipe as busy (73.5% against 74.1%), and at N = 8192 (1%
// padding) 2.001 against 1.997. The tiles now end at key N and the first
// tile's S skips the padding (in 32s): 1% faster in the geometric mean of
// 14 points at N >= 2048 (up to 3%), but not at B 1, H 4, N 4096; its P V, or
// the last tile's, over the keys below N alone did not pay
// (attention_fused_wgmma.cu), nor did tiles of 160 (1.6%
// padding at N = 4096, and room for a second Q slot, so that a persistent
// grid overlaps its items, kCrossItem): ncu timed them (fp16) at B 4,
// H 16, N 4096 1.132 against 1.059 ms with 176 (tensor active 68% against
// 74%), B 8, H 16, N 2048 0.600 against 0.560, B 2, H 16, N 8192 2.058
// against 1.993. Nor did tiles of 192 (22 tiles at N = 4096, the same
// padding): without the balanced tail they were as fast as 176 with it
// (bench, median of three, fp16 then bf16): B 4, H 16, N 4096 0.900 and
// 0.882 ms against 0.896 and 0.870 (176 without the tail 0.916 and
// 0.890); B 1, H 4, N 4096 0.0596 and 0.0583 against 0.0597 and 0.0585;
// B 2, H 16, N 8192 1.763 and 1.668 against 1.752 and 1.668. With the
// tail, ptxas spilled the consumers' 232 registers and serialised the
// wgmmas (C7512).
int WgmmaKvTile(const AttentionShape& shape);

// Consumer warpgroups of a block (64 query rows each) for a shape on a
// device of num_sms SMs: 2, but at d = 64 (head dims padded to 64)
//   - 1 when N <= 1024 and 128-row blocks would fill at most half the
//     SMs but 64-row blocks more than half: twice the blocks then fill the
//     SMs, where a key split would take two rounds of items and a combine,
//     and a consumer's chain of products and softmax is not slowed by a
//     second one. Measured on the H200 (fp16, median of five, one consumer
//     against two): B 2, H 4, N 1000 0.0143 against 0.0179 ms (causal
//     0.0144 against 0.0176); B 1, H 8, N 1000 0.0143 against 0.0180.
//     Where a grid of 64-row blocks would itself be split, one consumer
//     was not faster (B 1, H 1, N 4000, split 2 ways against two consumers
//     split 4 ways: 0.0237 against 0.0220; B 1, H 2, N 2000 causal, 3 ways
//     against 4: 0.0171 against 0.0167). The rule is a closed form because
//     the launcher runs it on every launch: the split-KV rule's model of
//     the grid there cost 23 us of host time a launch, which the
//     benchmark's events around the call measured (0.027 to 0.054 ms);
//   - 3 when 192-row blocks make at least 4 waves and, non-causal, N >= 2048
//     or N <= 512, causal N >= 8192. Measured on the H200 (fp16, median of
//     three, three consumers against two): their softmax overlaps more at
//     long rows (B 8, H 32, N 2048: 0.637 against 0.691 ms) and at B 32, H 32,
//     N 512 (0.203 against 0.214), while N 1024 is even (0.368 against 0.369)
//     and causal short rows lose on the diagonal (N 1024 0.270 against 0.249;
//     N 512 0.180 against 0.159); 128-row blocks also fill the waves of a
//     narrow grid (B 1, H 8, N 8192: 0.320 against 0.352). Causal, a block's
//     consumers all run to the key tile of its last row: 128 keys a row
//     past the diagonal on average with 192 rows, 64 with 128, which long
//     rows amortise. Measured on H100s with the kernels of 2026-12-07
//     (docs/perf/attention_trials.md, the median of each build's rounds,
//     two consumers against three, causal, fp16 and bf16): B 8, H 32, N
//     2048 0.369 against 0.375 ms and 0.367 against 0.374 (four rounds), B
//     4, H 32, N 4096 0.661 against 0.655 and 0.657 against 0.655 (even),
//     B 2, H 32, N 8192 1.250 against 1.214 and 1.230 against 1.206, B 1,
//     H 32, N 16384 2.444 against 2.336 and 2.388 against 2.286 (two
//     rounds, the three consumers' build leaving out their masked key
//     tiles, which timed within the rounds' spread of these kernels). On
//     the H200 with the kernels before the cross-item S
//     (kCrossItem) three consumers had won at N 2048 and 4096 (0.381
//     against 0.408 ms, 0.667 against 0.723).
int WgmmaConsumers(const AttentionShape& shape, int num_sms);
// Query rows of one block, 64 * WgmmaConsumers (for the split-KV rule).
int WgmmaQueryRows(const AttentionShape& shape, int num_sms);

// The grid for the split-KV rule (attention_split_kv.h): WgmmaQueryRows,
// WgmmaKvTile, one block an SM (its shared memory), and the costs fitted
// on the H200's sweep of 1 to 16 splits (docs/perf/data/
// attention_splits.json): an item's fixed cost 256 keys, the combine's 512.
// With them the rule picks, for B 1, H 1, N 3000, d 128, 5 splits (0.0218
// ms; the old rule's 11: 0.0282), and for B 2, H 4, N 1000, d 64 none
// (0.0173 ms with 128-row blocks; 5 splits: 0.0244).
inline constexpr int kWgmmaItemKeys = 256, kWgmmaCombineKeys = 512;
SplitKvKernel WgmmaSplitKvKernel(const AttentionShape& shape, int num_sms);

// Whether the grid is persistent for this shape and split: one block per
// SM, each running its chunks of work in turn (the next one's Q and first
// K/V tiles load while the last one's products and stores finish; causal,
// a chunk pairs the longest query block of a head with its shortest), or
// else one block per query block and split, heaviest first, left to the
// hardware's block scheduler. Persistent when
//   - an item is short: its keys (ceil(N / splits), half that causal)
//     times the padded head dim squared at most 2^26 (16384 keys at d = 64,
//     4096 at 128, 1024 at 256). The persistent kernel measured slower at
//     long items (below), so it pays only where the prologue it hides is a
//     large enough part of an item (at d = 128 its main loop is the same
//     SASS as the other's, FusedWgmmaKernel's comment: the cost lies
//     outside the loop, not measured further). The bound
//     is fitted to the FlashAttention grid, timed both ways on the H200
//     (fp16, median of four, persistent over one block per item): d 64
//     0.93 to 0.97 at N 4096 to 16384 (causal 0.87 to 0.96 at N 8192 and
//     16384); d 128 0.97 at N 2048, 0.99 at 4096 (0.98 and 0.99 in fp16
//     and bf16, median of five, with cuDNN timed between the two: it took
//     1.016 and 1.012 times as long as persistent; but in three whole-grid
//     calls bf16 persistent measured 0.92 to 0.96 ms there, against 0.90
//     one block per item in the grid call before: not settled), 1.01 at
//     8192 and 16384
//     (causal 0.96 at N 4096, 1.00 at 8192, 1.06 at 16384); d 256 0.995 at
//     N 1024, 1.03 to 1.05 at 2048 to 16384 (causal 0.93 at N 2048, 0.97
//     at 4096, 0.99 at 8192, 1.03 at 16384). One bound for every head dim
//     leaves d 256 causal N 4096 and 8192 a block per item;
//   - its chunks fill their rounds of num_sms to at least 90%: below that a
//     fixed assignment leaves SMs idle that the block scheduler, packing
//     items of unequal work (causal rows, split ranges of different
//     lengths or empty), would fill (B 2, H 4, N 1000, d 64, 288 items
//     split 6 ways in 2.2 rounds: 0.0266 against 0.0243 ms);
//   - some block has a next item: not so for one round of non-causal
//     chunks, one item each. Measured on the H200 (fp16, median of five,
//     persistent against one block per item): B 2, H 4, N 1000, d 64, 128
//     blocks of 64 rows, 0.0148 against 0.0143 ms; B 1, H 1, N 4000, d 64,
//     split 4 ways, 0.0220 against 0.0216; B 1, H 4, N 4096, d 128, 0.0610
//     against 0.0606 (median of four).
bool WgmmaPersistent(const AttentionShape& shape, int splits, int num_sms);

// The balanced tail (CUTLASS's stream-K, over key tiles): a grid of
// equal items in rounds of num_sms blocks ends with a round the items fill
// only partly (B 4, H 16, N 4096, d 128: 2048 items of 128 rows in 15.5
// rounds, so the last round leaves 64 SMs idle, 3% of the kernel). There
// the items of the last round (with the round before them, when they would
// fill less than half the SMs) are cut into num_sms runs of equal key
// tiles, one a block, after the whole items; a run may end in the middle of
// an item and the next block's begin there, so an item is cut into at most
// kWgmmaTailPieces pieces. Each piece computes its part of the online
// softmax; the last of an item's pieces to finish merges the others'
// partials (fp32 O, row max and sum, through the workspace) and stores O.
// Counted by an atomic a warp of rows: a piece never waits for another.
//
// Where: non-causal rows of at least 2048 keys, of a head dim padded to 128
// (in tiles of 176 keys, WgmmaKvTile) or to 64 with two consumers
// (WgmmaConsumers: a grid too narrow for three; WgmmaTailFor gives the
// measurements), no split, a last round whose idle SMs are at least 2% of
// the grid's (over all its rounds), and at least a round of whole items
// before the tail. Measured on the H200 (fp16, bf16 in
// brackets, with against without). Every point of the FlashAttention grid
// with d = 128 has 2048 items (3% idle); the bench, median of three in one
// call: N 2048 0.475 against 0.482 ms (0.466 against 0.465), N 4096 0.886
// against 0.915 (0.870 against 0.898), N 8192 1.717 against 1.773 (1.701
// against 1.733), N 16384 3.459 against 3.493 (3.296 against 3.327), and
// B 1, H 8, N 8192 (512 items) 0.419 against 0.430 (0.405 against 0.409);
// ncu at base clocks, median of three launches: N 2048 563 against 570 us
// (567 against 572), N 4096 1054 against 1061 (1050 against 1069), N 8192
// 1978 against 1998 (1966 against 1977), N 16384 3879 against 3839 (3807
// against 3869), B 1, H 8, N 8192 507 against 504 (509 against 510). So
// it gains about 1%, not the 3% the idle SMs of the last round would
// suggest: there the 68 busy SMs run faster, and the cut items cost a
// piece's start and a merge. With no whole round before it, B 1, H 4,
// N 4096 (128 items, every one cut in two) took 0.067 against 0.061 ms a
// block per item.
inline constexpr int kWgmmaTailPieces = 3;
struct WgmmaTail {
  int whole_items = 0;  // items run whole first, round-robin: a multiple of num_sms
  int tail_items = 0;   // the items after them, cut into num_sms runs (0: no tail)
};
WgmmaTail WgmmaTailFor(const AttentionShape& shape, int splits, int num_sms);
// The tail's workspace: the pieces' counters, which must be zero before the
// first launch (each launch leaves them zero again), then their partials.
int64_t WgmmaTailCounterBytes(const WgmmaTail& tail);
int64_t WgmmaTailWorkspaceBytes(const WgmmaTail& tail);

// The grid a launch runs: with `balanced_tail`, the tail WgmmaTailFor
// gives, and persistent where there is one (a block's run spans items),
// else as WgmmaPersistent says.
struct WgmmaGrid {
  WgmmaTail tail;
  bool persistent = false;
};
WgmmaGrid WgmmaGridFor(const AttentionShape& shape, int splits, int num_sms, bool balanced_tail);

// How the kernel's consumer warpgroups share the tensor cores; the
// benchmark times each (tools/bench/attention_bench.cc --mma-configs).
enum class WgmmaConfig {
  // The consumers run unsynchronised (the warp schedulers interleave them).
  kFree,
  // FlashAttention-3's ping-pong between two consumers: they take turns to
  // issue their products, so that one's softmax fills the other's matrix
  // time (with three consumers, at d = 64 with long rows, it is kFree).
  kPingPong,
};
// The config fused runs: kFree where an item is a few key tiles (N <= 512
// but causal at d = 64, or causal with N <= 1024 at a head dim padded past
// 128), where the turns cost more than the overlap they buy; else
// kPingPong, which in a persistent grid also overlaps one item's store
// with the next one's first S. Measured on the H200 (fp16, median of
// three, kFree against kPingPong): B 32, H 16, N 512, d 128 causal 0.120
// against 0.122 ms; B 32, H 8, N 512, d 256 0.160 against 0.164; B 16,
// H 8, N 1024, d 256 causal 0.172 against 0.172; but B 32, H 32, N 512,
// d 64 causal 0.159 against 0.152, B 16, H 16, N 1024, d 128 causal 0.176
// against 0.175 (bf16 0.174 against 0.172), B 16, H 32, N 1024, d 64
// causal 0.249 against 0.229, and B 4, H 16, N 4096, d 128 1.064 against
// 0.943 (one run, the least of two).
WgmmaConfig WgmmaConfigFor(const AttentionShape& shape);

// `splits` as LaunchAttentionFusedMma (attention_fused_mma.h);
// `balanced_tail`: the grid of WgmmaGridFor, whose tail needs
// WgmmaTailWorkspaceBytes of tensors.workspace with its counters zeroed.
// cudaErrorInvalidValue for fp32, a head_dim outside kFusedCudaHeadDims, a
// missing workspace, or a shape whose grid does not fit;
// cudaErrorNotSupported when the driver has no tensor-map encoder.
cudaError_t LaunchAttentionFusedWgmma(const AttentionShape& shape, DType dtype,
                                      const AttentionTensors& tensors, int splits,
                                      WgmmaConfig config, bool balanced_tail, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
