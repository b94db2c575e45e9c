// The CUDA device references and the comparison kernel that verification
// runs on the device (proto/ops/device_output.h states the contract).
// The references share no code with the variants: no tiles, MMA fragments,
// softmax or exp2 helpers of the variants' files; plain fp32 arithmetic
// with libdevice expf, slow and simple, run once per workload and untimed.
//
// Contract: pointers are device memory; inputs are the workload's own
// buffers in its dtype (16-bit inputs are already rounded to the dtype);
// `ref` holds fp32 elements; a launcher enqueues on `stream`, does not
// wait, and returns the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

// ref[i] = float(a[i]) + float(b[i]), one thread per element.
cudaError_t LaunchVectorAddReference(DType dtype, const void* a, const void* b, float* ref,
                                     int64_t n, cudaStream_t stream);

// One warp per (batch-head, query row), lanes over head_dim: pass 1 the row
// max of s_j = dot(q, k_j) / sqrt(d) over its keys (j <= i when causal),
// pass 2 p_j = expf(s_j - max), their sum and acc += p_j v_j in key order,
// then ref = acc / sum. head_dim at most kMaxReferenceHeadDim.
inline constexpr int kMaxReferenceHeadDim = 256;
cudaError_t LaunchAttentionReference(const AttentionShape& shape, DType dtype, const void* q,
                                     const void* k, const void* v, float* ref,
                                     cudaStream_t stream);

// A comparison's per-block partial, the fields of kernels::Comparison.
struct ComparisonPartial {
  unsigned long long checked;
  unsigned long long non_finite;
  unsigned long long over_tolerance;
  double max_abs_error;
  double sum_sq_error;
  double sum_sq_ref;
  long long worst_index;
  double worst_excess;
};

// Blocks a comparison of n elements uses: at most kMaxComparisonBlocks.
inline constexpr int kMaxComparisonBlocks = 1024;
int ComparisonBlocks(int64_t n);

// Compares out (n elements of `dtype`) with ref (n fp32) element by element
// as kernels::Comparison::Add does, into partials[0, ComparisonBlocks(n));
// the caller merges them on the host.
cudaError_t LaunchCompare(DType dtype, const void* out, const float* ref, int64_t n,
                          double atol, double rtol, ComparisonPartial* partials,
                          cudaStream_t stream);

}  // namespace kbench::kernels::cuda
