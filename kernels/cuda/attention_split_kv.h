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

#include "kernels/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// Query rows a block of the mma.sync kernel owns in fp16/bf16 (the wgmma
// kernel's: WgmmaQueryRows, attention_fused_wgmma.h; fp32's:
// Tf32QueryRows, attention_fused_mma.h).
inline constexpr int kFusedQueryRows = 128;
// The most splits the rule picks (bounds the workspace with the SM count).
inline constexpr int kMaxKvSplits = 64;

// The rule, for a kernel whose blocks own query_rows rows and read keys in
// tiles of kv_tile: with q_blocks = batch * heads * ceil(seq_len /
// query_rows) and
// kv_tiles = ceil(seq_len / kv_tile), split when the query blocks keep at
// most half the SMs busy, a causal block counting as half (it reads half
// the keys on average): min(ceil(2 * num_sms / q_blocks), kv_tiles,
// kMaxKvSplits) when (causal ? ceil(q_blocks / 2) : q_blocks) <= num_sms /
// 2. Past that, without the mask, a grid whose last wave is mostly idle is
// split too: the smallest s of 2 to 4 (and at most kv_tiles) with
// ceil(s q_blocks / num_sms) / s <= 3/4 ceil(q_blocks / num_sms) (80 query
// blocks: 3 splits, 2 waves of a third of the keys). (On the H200, B = 1,
// H = 4, N = 4096, d = 128: 128 query blocks split 3 ways ran 3% slower
// than one pass, causal 39% faster.)
int SplitKvSplits(const AttentionShape& shape, int query_rows, int kv_tile,
                  int num_sms);

// Bytes of workspace `splits` splits need (0 for one split).
int64_t SplitKvWorkspaceBytes(const AttentionShape& shape, int splits);

// Enqueues the combine of `splits` partials in `workspace` into `o` (dtype).
cudaError_t LaunchSplitKvCombine(const AttentionShape& shape, DType dtype,
                                 int splits, const void* workspace, void* o,
                                 cudaStream_t stream);

}  // namespace kbench::kernels::cuda
