// The CUDA device reference of attention, against which verification
// compares every element of a variant's output (kernels/cuda/
// comparison_kernel.h). It shares no code with the variants: no tiles, MMA
// fragments, softmax or exp2 helpers of the variants' files; plain fp32
// arithmetic with libdevice expf, slow and simple, run once per workload
// and untimed.
//
// Contract: pointers are device memory; inputs are the workload's own
// buffers in its dtype (16-bit and fp8 inputs are already rounded to the
// dtype; an fp8 element reads as its E4M3 value times kFp8InputScale);
// `ref` holds fp32 elements; the launcher enqueues on `stream`, does not
// wait, and returns the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// One warp per (batch-head, query row), lanes over head_dim: pass 1 the row
// max of s_j = dot(q, k_j) / sqrt(d) over its keys (j <= i when causal),
// pass 2 p_j = expf(s_j - max), their sum and acc += p_j v_j in key order,
// then ref = acc / sum. head_dim at most kMaxAttentionHeadDim
// (kernels/attention/attention_head_dims.h): a row's q and acc live in
// registers.
cudaError_t LaunchAttentionReference(const AttentionShape& shape, DType dtype, const void* q,
                                     const void* k, const void* v, float* ref, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
