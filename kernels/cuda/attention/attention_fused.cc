// LaunchAttentionFused (attention.h): picks the fused kernel for the dtype
// and device: fp32 by mma.sync in 3xFP16; fp16/bf16 by wgmma on a Hopper
// (sm_90) device, else by mma.sync; fp8 by FP8 wgmma (Hopper only); each in
// its default tiling.
// PlanAttentionFused: the split-KV rule applied to that kernel's tiling.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda/attention/attention_fp32_range.h"
#include "kernels/cuda/attention/attention_fused_fp8.h"
#include "kernels/cuda/attention/attention_fused_mma.h"
#include "kernels/cuda/attention/attention_fused_wgmma.h"
#include "kernels/cuda/attention/attention_split_kv.h"

namespace kbench::kernels::cuda {
namespace {

// The kernel fused runs for a dtype on the current device: the one place
// the plan and the launch take it from.
enum class FusedKernel { kFp32, kWgmma, kMma, kFp8 };
FusedKernel KernelFor(DType dtype) {
  if (dtype == DType::kFp32) return FusedKernel::kFp32;
  if (dtype == DType::kFp8) return FusedKernel::kFp8;
  return WgmmaAttentionRuns(dtype) ? FusedKernel::kWgmma : FusedKernel::kMma;
}

}  // namespace

bool FusedAttentionSupports(int64_t head_dim) {
  return std::find(std::begin(kFusedCudaHeadDims), std::end(kFusedCudaHeadDims), head_dim) !=
         std::end(kFusedCudaHeadDims);
}

bool FusedFp8Supports(int64_t head_dim) {
  return std::find(std::begin(kFusedCudaFp8HeadDims), std::end(kFusedCudaFp8HeadDims), head_dim) !=
         std::end(kFusedCudaFp8HeadDims);
}

FusedAttentionPlan PlanAttentionFused(const AttentionShape& shape, DType dtype, int num_sms) {
  const FusedKernel kernel = KernelFor(dtype);
  if (kernel == FusedKernel::kFp8) {
    FusedAttentionPlan plan;
    plan.workspace_bytes = FusedWorkspaceBytes(shape, dtype, 1);
    const int64_t blocks =
        shape.BatchHeads() * ((shape.seq_len + kFp8QueryRows - 1) / kFp8QueryRows);
    plan.description =
        "one pass: " + std::to_string(blocks) + " query blocks, " + std::to_string(num_sms) +
        " SMs; FP8 wgmma (sm_90a) after a V^T pass, key tiles of " + std::to_string(kFp8KvTile) +
        ", " + std::to_string(kFp8QueryRows) + " query rows, a block per item, ping-pong";
    return plan;
  }
  const SplitKvKernel grid = kernel == FusedKernel::kFp32
                                 ? Fp32SplitKvKernel(Fp32ConfigFor(shape), shape.head_dim)
                             : kernel == FusedKernel::kWgmma ? WgmmaSplitKvKernel(shape, num_sms)
                                                             : MmaSplitKvKernel(shape.head_dim);
  const int kv_tile = grid.kv_tile, query_rows = grid.query_rows;
  FusedAttentionPlan plan;
  plan.splits = SplitKvSplits(shape, grid, num_sms);
  plan.workspace_bytes = FusedWorkspaceBytes(shape, dtype, plan.splits);
  const WgmmaGrid wgmma = WgmmaGridFor(shape, plan.splits, num_sms, true);
  if (kernel == FusedKernel::kWgmma && wgmma.tail.tail_items > 0) {
    plan.balanced_tail = true;  // (one split: no split workspace)
    plan.workspace_bytes = WgmmaTailWorkspaceBytes(wgmma.tail);
    plan.workspace_zeroed_bytes = WgmmaTailCounterBytes(wgmma.tail);
  }
  const int64_t q_blocks = shape.BatchHeads() * ((shape.seq_len + query_rows - 1) / query_rows);
  const std::string blocks = std::to_string(q_blocks) + " query blocks";
  const std::string sms = std::to_string(num_sms) + " SMs";
  const char* name = kernel == FusedKernel::kFp32
                         ? "mma.sync 3xFP16, inputs scaled by powers of two"
                     : kernel == FusedKernel::kWgmma ? "wgmma (sm_90a)"
                                                     : "mma.sync";
  plan.description =
      (plan.splits > 1 ? "split-KV x" + std::to_string(plan.splits) : std::string("one pass")) +
      ": " + blocks + ", " + sms + "; " + name + ", key tiles of " + std::to_string(kv_tile);
  if (kernel == FusedKernel::kWgmma)
    plan.description +=
        std::string(", ") + std::to_string(query_rows) + " query rows, " +
        (!wgmma.persistent    ? "a block per item"
         : plan.balanced_tail ? "persistent, the last " + std::to_string(wgmma.tail.tail_items) +
                                    " items balanced over the SMs"
                              : "persistent") +
        // Three consumers (192 rows) always run free (WgmmaConfig).
        (query_rows == 64                                                  ? ", one consumer"
         : query_rows > 128 || WgmmaConfigFor(shape) == WgmmaConfig::kFree ? ", free consumers"
                                                                           : ", ping-pong");
  if (kernel == FusedKernel::kWgmma && WgmmaHeadDim(shape.head_dim) != shape.head_dim)
    plan.description += ", head dim padded to " + std::to_string(WgmmaHeadDim(shape.head_dim));
  return plan;
}

int64_t FusedWorkspaceBytes(const AttentionShape& shape, DType dtype, int splits) {
  switch (dtype) {
    case DType::kFp32:
      return Fp32RangeOffset(shape, splits) + kFp32RangeBytes;
    case DType::kFp8:
      return Fp8FusedWorkspaceBytes(shape);
    case DType::kFp16:
    case DType::kBf16:
      break;
  }
  return SplitKvWorkspaceBytes(shape, splits);
}

bool FusedLaunchable(const AttentionShape& shape, int splits) {
  return FusedAttentionSupports(shape.head_dim) && splits >= 1 && splits <= kMaxKvSplits &&
         shape.seq_len >= 1 && shape.seq_len <= INT32_MAX / 2 && shape.BatchHeads() >= 1;
}

int FusedPaddedHeadDim(int64_t head_dim) {
  return head_dim <= 64 ? 64 : head_dim <= 128 ? 128 : 256;
}

cudaError_t LaunchAttentionFused(const AttentionShape& shape, DType dtype,
                                 const AttentionTensors& tensors, const FusedAttentionPlan& plan,
                                 cudaStream_t stream) {
  if (!FusedAttentionSupports(shape.head_dim)) return cudaErrorInvalidValue;
  switch (KernelFor(dtype)) {
    case FusedKernel::kFp32:
      return LaunchAttentionFusedFp32(shape, tensors, Fp32ConfigFor(shape), plan.splits, stream);
    case FusedKernel::kWgmma:
      return LaunchAttentionFusedWgmma(shape, dtype, tensors, plan.splits, WgmmaConfigFor(shape),
                                       plan.balanced_tail, stream);
    case FusedKernel::kMma:
      return LaunchAttentionFusedMma(shape, dtype, tensors, kDefaultMmaConfig, plan.splits, stream);
    case FusedKernel::kFp8:
      if (plan.splits != 1) return cudaErrorInvalidValue;
      return LaunchAttentionFusedFp8(shape, tensors, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
