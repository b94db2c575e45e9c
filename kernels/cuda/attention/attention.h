// Attention on a CUDA device, O = softmax(Q K^T / sqrt(d) [+ causal mask]) V,
// for Q, K, V, O laid out as kernels/attention/attention_shape.h says (row-major
// [batch, heads, seq_len, head_dim]) in fp32, fp16 or bf16, and for naive
// fp8 too (E4M3 with kernels/dtype.h's per-tensor scale; O in bf16,
// kernels/attention/tolerances.h's AttentionOutputDType). Two variants:
//   naive: the TinyGPT replica, three steps through HBM (attention_naive.cc):
//          S = Q K^T * scale by cuBLAS (S in the input dtype, fp32
//          accumulation; plain fp32 FMA for fp32, no TF32), a mask + softmax
//          pass over S in place (attention_softmax.cu, fp32 arithmetic), then
//          O = P V by cuBLAS. fp8 inputs are first widened to bf16 (times
//          their scale, exactly: attention_fp8_widen.cu), as PyTorch's eager
//          code would before the same three steps in bf16.
//   fused: one kernel, S never leaves the chip, online softmax, on tensor
//          cores: fp16/bf16 by attention_fused_wgmma.cu on a Hopper (sm_90)
//          device (FlashAttention-3's structure), by attention_fused_mma.cu
//          (FlashAttention-2's, mma.sync) on any other; fp8 by
//          attention_fused_fp8.cu (FP8 wgmma, after a pass that writes V
//          transposed into the workspace) on a Hopper device only; fp32 by
//          attention_fused_mma.cu in 3xFP16 (error near fp32's, for any
//          finite input: each tensor is scaled by a power of two into
//          fp16's range, AttentionTensors::input_bound). Head dims
//          kernels::kFusedCudaHeadDims only (kernels/attention/attention_head_dims.h).
//          When batch * heads * ceil(seq_len / query rows) blocks do not
//          fill the SMs, the keys are split over blocks with a combine
//          kernel after (attention_split_kv.h); PlanAttentionFused says how.
// Tolerances: kernels/attention/tolerances.h.
//
// Contract: every pointer is device memory from cudaMalloc (256-byte
// aligned); a launcher enqueues on `stream`, does not wait, and returns the
// launch's error. Any seq_len >= 1 works (tails are masked); causal masks key
// j > query i.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "kernels/attention/attention_head_dims.h"
#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// True when `fused` runs this head_dim (in fp8: FusedFp8Supports).
bool FusedAttentionSupports(int64_t head_dim);
// True when `fused` runs this head_dim in fp8 (kFusedCudaFp8HeadDims).
bool FusedFp8Supports(int64_t head_dim);
// True when every fused kernel can launch `shape` with `splits` key splits:
// a head dim FusedAttentionSupports, 1 <= splits <= kMaxKvSplits, 1 <=
// seq_len <= INT32_MAX / 2 and batch * heads >= 1. Each launcher refuses
// anything else with cudaErrorInvalidValue.
bool FusedLaunchable(const AttentionShape& shape, int splits);

// The head dim of the tiles that run `head_dim` (one FusedAttentionSupports
// accepts): 64, 128 or 256, the next at or above it.
int FusedPaddedHeadDim(int64_t head_dim);

struct AttentionTensors {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  // Device memory of FusedAttentionPlan::workspace_bytes (fused with split
  // keys, a balanced tail, fp32 or fp8 only; otherwise unused).
  void* workspace = nullptr;
  // fused fp32 only: a bound on |x| over Q, K and V that the caller knows
  // (e.g. kernels::kSeededInputBound for the service's inputs), or 0: then
  // a pass over the inputs before the kernel finds each tensor's largest
  // magnitude (attention_fp32_range.h). Either sets the power-of-two scale
  // that brings the inputs into fp16's range; a bound below the inputs'
  // real magnitude overflows fp16 and fails verification. Positive and
  // finite, or 0.
  float input_bound = 0;
};

// How fused runs a shape: the key splits of SplitKvSplits's rule for the
// default tiling, whether the wgmma kernel balances its last round
// (WgmmaTailFor, attention_fused_wgmma.h), the workspace they need, and a
// line saying so.
struct FusedAttentionPlan {
  int splits = 1;
  bool balanced_tail = false;
  int64_t workspace_bytes = 0;
  // The workspace's first bytes that must be zero before its first launch
  // (the balanced tail's counters); every launch leaves them zero.
  int64_t workspace_zeroed_bytes = 0;
  // e.g. "split-KV x11: 24 query blocks, 132 SMs; wgmma (sm_90a), key tiles
  // of 128" or "one pass: 256 query blocks, 132 SMs; mma.sync 3xFP16, key
  // tiles of 64".
  std::string description;
};
FusedAttentionPlan PlanAttentionFused(const AttentionShape& shape, DType dtype, int num_sms);

// The workspace fused needs for `dtype` with `splits` key splits and no
// balanced tail (the plan's own when it has none): the split-KV partials
// (SplitKvWorkspaceBytes), and for fp32 the range words after them
// (attention_fp32_range.h), so fp32 always needs one; fp8 (one split
// only) V^T (attention_fused_fp8.h).
int64_t FusedWorkspaceBytes(const AttentionShape& shape, DType dtype, int splits);

// The fused kernel as `plan` says (tensors.workspace holds
// plan.workspace_bytes when that is not 0). cudaErrorInvalidValue for a
// head_dim outside kFusedCudaHeadDims (fp8: kFusedCudaFp8HeadDims), a
// missing workspace, or a shape whose grid does not fit;
// cudaErrorNotSupported for fp8 on a device other than sm_90.
cudaError_t LaunchAttentionFused(const AttentionShape& shape, DType dtype,
                                 const AttentionTensors& tensors, const FusedAttentionPlan& plan,
                                 cudaStream_t stream);

// The three steps of naive. `scores` holds shape.ScoreElements() elements of
// dtype. The GEMMs run on `handle`'s stream; the caller puts the handle on
// its stream with a workspace of its own (cublasSetStream, then
// cublasSetWorkspace: setting the stream resets the workspace), so that the
// GEMMs can be captured into a CUDA graph.
cublasStatus_t AttentionScoresGemm(cublasHandle_t handle, const AttentionShape& shape, DType dtype,
                                   const void* q, const void* k, void* scores);
cudaError_t LaunchAttentionSoftmax(const AttentionShape& shape, DType dtype, void* scores,
                                   cudaStream_t stream);
cublasStatus_t AttentionOutputGemm(cublasHandle_t handle, const AttentionShape& shape, DType dtype,
                                   const void* probs, const void* v, void* o);

// Naive's step for fp8 inputs: out[i] = the bf16 of in[i]'s E4M3 value times
// kFp8InputScale, for `elements` (>= 1) elements. The GEMMs and softmax
// then run in bf16 on the widened Q, K and V.
cudaError_t LaunchAttentionWidenFp8(int64_t elements, const void* in, void* out,
                                    cudaStream_t stream);

}  // namespace kbench::kernels::cuda
