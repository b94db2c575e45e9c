// The fused attention kernels behind LaunchAttentionFused (attention.h), with
// their tile configurations exposed for the benchmark that chooses among
// them. The server and tests call LaunchAttentionFused.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/attention/attention_shape.h"
#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// fp16/bf16 tensor-core kernel (attention_fused_mma.cu); every configuration
// has 128 query rows a block. The configurations below are those of d = 64
// and 128; at d = 256 every configuration runs 8 warps of 16 rows with K and
// V tiles of 64 rows, and a padded head_dim (not 64, 128 or 256) runs the
// default configuration's tiling of the next of those.
enum class MmaConfig {
  // 4 warps of 32 query rows (FlashAttention-2's forward shape): K and V
  // tiles of 64 rows for d = 128, 128 rows for d = 64.
  kWarps4Rows32,
  // 8 warps of 16 query rows, K and V tiles of 64 rows.
  kWarps8Rows16,
  // 4 warps of 32 query rows with half the K and V tile of kWarps4Rows32
  // (32 rows for d = 128, 64 for d = 64): fewer registers.
  kWarps4Rows32Narrow,
};
inline constexpr MmaConfig kDefaultMmaConfig = MmaConfig::kWarps4Rows32;

// `splits` key splits (1: none; more: tensors.workspace holds
// SplitKvWorkspaceBytes(shape, splits), kernels/cuda/attention/attention_split_kv.h).
cudaError_t LaunchAttentionFusedMma(const AttentionShape& shape, DType dtype,
                                    const AttentionTensors& tensors, MmaConfig config, int splits,
                                    cudaStream_t stream);
// Key rows of one K/V tile of `config` at head_dim.
int MmaKvTile(MmaConfig config, int64_t head_dim);
// The default config's grid for the split-KV rule: kFusedQueryRows, its
// key tile, one block an SM, and the wgmma kernel's costs (this kernel runs
// on devices other than Hopper, where no sweep has been measured).
SplitKvKernel MmaSplitKvKernel(int64_t head_dim);

// fp32 on the fp16 tensor cores, 3xFP16 (FusedFp32Kernel,
// attention_fused_mma.cu; attention_ptx.cuh's SplitHalves): each element as
// two fp16 pieces and each product as three fp16 products of them, error
// near fp32's own, at twice the rate of the 3xTF32 that SDPA's efficient
// kernel runs (CUTLASS's OpMultiplyAddFastF32). Any finite input: the
// kernel scales each tensor by a power of two that brings it into fp16's
// range (exact), then scales S and O back; the power comes from the
// caller's bound (AttentionTensors::input_bound) or a pass before the
// kernel that finds each tensor's largest magnitude
// (attention_fp32_range.h). Each
// element is then held to 2^-22 of itself, or to 2^-39 of its tensor's
// largest magnitude, whichever is larger. The launch needs a workspace of
// FusedWorkspaceBytes(shape, kFp32, splits) (attention.h) even unsplit.
enum class Fp32Config {
  // 8 warps of 16 query rows (128 a block), K and V tiles of 64 rows.
  kWarps8Rows16,
  // 4 warps of 16 query rows (64 a block), K and V tiles of 64 rows at
  // d = 64, 32 at d = 128.
  kWarps4Rows16,
  // 4 warps of 32 query rows, K and V tiles of 64 rows at d = 64, 32 at
  // d = 128.
  kWarps4Rows32,
};
// The config fused runs for `shape`: kWarps4Rows32 at d = 64,
// kWarps8Rows16 otherwise. On the H200, B = 4, N = 4096, one pass, median
// of three: d = 64 (H = 32) 5.11 ms against kWarps8Rows16's 5.73 and
// kWarps4Rows16's 6.33, causal 2.69 against 3.11 and 3.27; d = 128 (H =
// 16) kWarps8Rows16 4.89 ms against 6.20 and kWarps4Rows32's 5.82, causal
// 2.75 against 3.27 and 2.71 (and at N = 512, B = 32: 0.453 against 0.496
// and 0.461). d = 256 runs 8 warps of 16 rows with key tiles of 32 for
// every config, and a head_dim other than 64, 128 or 256 runs
// kWarps8Rows16's tiling of the next of those.
Fp32Config Fp32ConfigFor(const AttentionShape& shape);
// `splits` as for LaunchAttentionFusedMma.
cudaError_t LaunchAttentionFusedFp32(const AttentionShape& shape, const AttentionTensors& tensors,
                                     Fp32Config config, int splits, cudaStream_t stream);
// Key rows of one K/V tile, and query rows of a block, of `config` at
// head_dim.
int Fp32KvTile(Fp32Config config, int64_t head_dim);
int Fp32QueryRows(Fp32Config config, int64_t head_dim);
// `config`'s grid at head_dim for the split-KV rule (attention_split_kv.h):
// an item's fixed cost 16 keys, the combine's none, and two blocks an SM
// at d <= 128. Fitted on the H200 for the 3xTF32 kernel this one replaced
// (B 1, H 4, N 4096 causal ran 0.308 ms split 4 ways against 0.423 split
// 2) and not refitted: the low-parallelism shapes of docs/perf/attention.md
// run with them.
SplitKvKernel Fp32SplitKvKernel(Fp32Config config, int64_t head_dim);

}  // namespace kbench::kernels::cuda
