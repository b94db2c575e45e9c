// The comparison kernel that verification runs on the device
// (proto/ops/device_output.h states the contract): a variant's output
// against the op's device reference (kernels/cuda/<op>/reference_kernel.h),
// element by element. Pointers are device memory; the launcher enqueues on
// `stream`, does not wait, and returns the launch's error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/dtype.h"

namespace kbench::kernels::cuda {

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
cudaError_t LaunchCompare(DType dtype, const void* out, const float* ref, int64_t n, double atol,
                          double rtol, ComparisonPartial* partials, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
