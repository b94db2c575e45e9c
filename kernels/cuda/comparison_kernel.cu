// The comparison kernel (comparison_kernel.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda/comparison_kernel.h"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;

__device__ void Add(ComparisonPartial& c, int64_t index, float out, double ref, double atol,
                    double rtol) {
  ++c.checked;
  c.sum_sq_ref += ref * ref;
  double excess = INFINITY;
  if (!isfinite(out)) {
    ++c.non_finite;
  } else {
    const double err = fabs(double(out) - ref);
    const double bound = atol + rtol * fabs(ref);
    c.max_abs_error = fmax(c.max_abs_error, err);
    c.sum_sq_error += err * err;
    if (err > bound) ++c.over_tolerance;
    excess = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0.0);
  }
  if (c.worst_index < 0 || excess > c.worst_excess ||
      (excess == c.worst_excess && index < c.worst_index)) {
    c.worst_index = index;
    c.worst_excess = excess;
  }
}

__device__ void Merge(ComparisonPartial& into, const ComparisonPartial& other) {
  if (other.worst_index >= 0 &&
      (into.worst_index < 0 || other.worst_excess > into.worst_excess ||
       (other.worst_excess == into.worst_excess && other.worst_index < into.worst_index))) {
    into.worst_index = other.worst_index;
    into.worst_excess = other.worst_excess;
  }
  into.checked += other.checked;
  into.non_finite += other.non_finite;
  into.over_tolerance += other.over_tolerance;
  into.max_abs_error = fmax(into.max_abs_error, other.max_abs_error);
  into.sum_sq_error += other.sum_sq_error;
  into.sum_sq_ref += other.sum_sq_ref;
}

template <typename T>
__global__ void CompareKernel(const T* out, const float* ref, int64_t n, double atol, double rtol,
                              ComparisonPartial* partials) {
  __shared__ ComparisonPartial shared[kBlock];
  ComparisonPartial c{0, 0, 0, 0.0, 0.0, 0.0, -1, 0.0};
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    Add(c, i, ToFloat(out[i]), double(ref[i]), atol, rtol);
  shared[threadIdx.x] = c;
  __syncthreads();
  for (int half = kBlock / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) Merge(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

int64_t Blocks(int64_t n, int per_block) { return (n + per_block - 1) / per_block; }

}  // namespace

int ComparisonBlocks(int64_t n) {
  const int64_t blocks = Blocks(n < 1 ? 1 : n, kBlock);
  return int(blocks < kMaxComparisonBlocks ? blocks : kMaxComparisonBlocks);
}

cudaError_t LaunchCompare(DType dtype, const void* out, const float* ref, int64_t n, double atol,
                          double rtol, ComparisonPartial* partials, cudaStream_t stream) {
  if (n < 1) return cudaErrorInvalidValue;
  const unsigned grid = unsigned(ComparisonBlocks(n));
  switch (dtype) {
    case DType::kFp32:
      CompareKernel<<<grid, kBlock, 0, stream>>>(static_cast<const float*>(out), ref, n, atol, rtol,
                                                 partials);
      break;
    case DType::kFp16:
      CompareKernel<<<grid, kBlock, 0, stream>>>(static_cast<const __half*>(out), ref, n, atol,
                                                 rtol, partials);
      break;
    case DType::kBf16:
      CompareKernel<<<grid, kBlock, 0, stream>>>(static_cast<const __nv_bfloat16*>(out), ref, n,
                                                 atol, rtol, partials);
      break;
    case DType::kFp8:  // no op writes an fp8 output (attention's is bf16)
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
