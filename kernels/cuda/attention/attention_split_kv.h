// Split-KV for the fused attention kernels (flash-decoding style): when a
// shape has too few query blocks to fill the GPU, each query block's key
// tiles are divided among `splits` blocks. Each writes its partial O (already
// divided by its own row sum) and its rows' log2-sum-exp, fp32, into a
// workspace; a combine kernel then weighs the partials by exp2(lse - max
// lse) into O in the dtype.
//
// Contract: the rule (SplitKvSplits) is the only place the number of splits
// is chosen; the workspace holds SplitKvWorkspaceBytes(shape, splits) bytes
// of device memory, laid out as partial O [splits][batch*heads*seq_len]
// [head_dim] then lse [splits][batch*heads*seq_len]. A split whose key range
// is empty for a row writes lse = -inf and O = 0 there; split 0 always holds
// key 0, so every row has a finite lse.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// Query rows a block of the mma.sync kernel owns in fp16/bf16 (the wgmma
// kernel's: WgmmaQueryRows, attention_fused_wgmma.h; fp32's:
// Fp32QueryRows, attention_fused_mma.h).
inline constexpr int kFusedQueryRows = 128;
// The most splits the rule picks (bounds the workspace with the SM count).
inline constexpr int kMaxKvSplits = 64;

// What the rule knows of a fused kernel's grid. Costs are in keys, the
// time a block takes over one key of its query block at the kernel's own
// rate; each kernel's header gives its own (WgmmaSplitKvKernel,
// Fp32SplitKvKernel, MmaSplitKvKernel).
struct SplitKvKernel {
  int query_rows = 0;     // rows of a query block
  int kv_tile = 0;        // keys of a tile; an item reads whole tiles
  int blocks_per_sm = 1;  // blocks that run on an SM at once, as the rule counts them
  int item_keys = 0;      // an item's fixed cost: its block's start, Q, the
                          // first tile's wait, the epilogue
  int combine_keys = 0;   // the combine's: its launch, the partials' traffic
};

// The rule (the only place the number of splits is chosen): the s from 1
// to min(kv_tiles, kMaxKvSplits) whose grid finishes first, as modelled:
// each query block's key tiles cut into s ranges of ceil(tiles / s) (causal:
// block m's own tiles, up to its last row), each item costing its keys plus
// item_keys, packed heaviest first onto num_sms * blocks_per_sm slots (the
// block scheduler, or the persistent grid's equal chunks); the makespan
// plus combine_keys when s > 1. Only grids of at most kSplitKvRounds
// rounds of query blocks are split, and only into at most that many rounds
// of items (past it, the rounds already balance). Ties go to fewer splits.
// The costs were fitted to a sweep on the H200 of 1 to 16 splits over the
// low-parallelism shapes (docs/perf/data/attention_splits.json; there the
// rule's pick is within 1.035x of the fastest split at every fp16 point,
// and within 1.07x at every measured fp32 one).
inline constexpr int kSplitKvRounds = 4;
int SplitKvSplits(const AttentionShape& shape, const SplitKvKernel& kernel, int num_sms);

// Bytes of workspace `splits` splits need (0 for one split).
int64_t SplitKvWorkspaceBytes(const AttentionShape& shape, int splits);

// Enqueues the combine of `splits` partials in `workspace` into `o` (dtype).
cudaError_t LaunchSplitKvCombine(const AttentionShape& shape, DType dtype, int splits,
                                 const void* workspace, void* o, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
