// LaunchAttentionFused (attention.h): picks the fused kernel for the dtype
// and device: fp32 on CUDA cores; fp16/bf16 by wgmma on a Hopper (sm_90)
// device, else by mma.sync in its default tiling. PlanAttentionFused: the
// split-KV rule applied to that kernel's tiling.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

#include "kernels/cuda/attention.h"
#include "kernels/cuda/attention_fused_mma.h"
#include "kernels/cuda/attention_fused_wgmma.h"
#include "kernels/cuda/attention_split_kv.h"

namespace kbench::kernels::cuda {

bool FusedAttentionSupports(int64_t head_dim) {
  return std::find(std::begin(kFusedCudaHeadDims), std::end(kFusedCudaHeadDims),
                   head_dim) != std::end(kFusedCudaHeadDims);
}

FusedAttentionPlan PlanAttentionFused(const AttentionShape& shape, DType dtype,
                                      int num_sms) {
  const int kv_tile = dtype == DType::kFp32     ? Fp32KvTile()
                      : WgmmaAttentionRuns(dtype) ? WgmmaKvTile(shape.head_dim)
                                                  : MmaKvTile(kDefaultMmaConfig, shape.head_dim);
  FusedAttentionPlan plan;
  const int query_rows =
      dtype != DType::kFp32 && WgmmaAttentionRuns(dtype) ? WgmmaQueryRows(shape.head_dim)
                                                         : kFusedQueryRows;
  plan.splits = SplitKvSplits(shape, query_rows, kv_tile, num_sms);
  plan.workspace_bytes = SplitKvWorkspaceBytes(shape, plan.splits);
  const int64_t q_blocks =
      shape.BatchHeads() * ((shape.seq_len + query_rows - 1) / query_rows);
  const std::string blocks = std::to_string(q_blocks) + " query blocks";
  const std::string sms = std::to_string(num_sms) + " SMs";
  const std::string kernel = dtype == DType::kFp32       ? "fp32 CUDA cores"
                             : WgmmaAttentionRuns(dtype) ? "wgmma (sm_90a)"
                                                         : "mma.sync";
  plan.description = (plan.splits > 1 ? "split-KV x" + std::to_string(plan.splits)
                                      : std::string("one pass")) +
                     ": " + blocks + ", " + sms + "; " + kernel + ", key tiles of " +
                     std::to_string(kv_tile);
  return plan;
}

bool FusedLaunchable(const AttentionShape& shape, int splits) {
  return FusedAttentionSupports(shape.head_dim) && splits >= 1 &&
         splits <= kMaxKvSplits && shape.seq_len >= 1 &&
         shape.seq_len <= INT32_MAX / 2 && shape.BatchHeads() >= 1;
}

int FusedPaddedHeadDim(int64_t head_dim) {
  return head_dim <= 64 ? 64 : head_dim <= 128 ? 128 : 256;
}

cudaError_t LaunchAttentionFused(const AttentionShape& shape, DType dtype,
                                 const AttentionTensors& tensors,
                                 const FusedAttentionPlan& plan,
                                 cudaStream_t stream) {
  if (!FusedAttentionSupports(shape.head_dim)) return cudaErrorInvalidValue;
  if (dtype == DType::kFp32)
    return LaunchAttentionFusedFp32(shape, tensors, kDefaultFp32Config,
                                    plan.splits, stream);
  if (WgmmaAttentionRuns(dtype))
    return LaunchAttentionFusedWgmma(shape, dtype, tensors, plan.splits,
                                     kDefaultWgmmaConfig, stream);
  return LaunchAttentionFusedMma(shape, dtype, tensors, kDefaultMmaConfig,
                                 plan.splits, stream);
}

}  // namespace kbench::kernels::cuda
