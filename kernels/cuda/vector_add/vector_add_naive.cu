// Vector add, naive: the direct translation of the Triton program. One
// element per thread, grid = ceil(n / 256) blocks of 256 threads, and the
// tail masked by `i < n`. Nothing changed over naive: this is the baseline.
// Tolerance: fp32 (1e-5 relative L2), exact up to the one rounding of a + b.
#include "kernels/cuda/vector_add/vector_add.h"

namespace kbench::kernels::cuda {
namespace {

__global__ void VectorAddNaiveKernel(const float* a, const float* b, float* c, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

}  // namespace

cudaError_t LaunchVectorAddNaive(const float* a, const float* b, float* c, int64_t n,
                                 cudaStream_t stream) {
  if (n < 1) return cudaErrorInvalidValue;
  const int64_t blocks = (n + kVectorAddBlock - 1) / kVectorAddBlock;
  if (blocks > int64_t(0x7fffffff)) return cudaErrorInvalidValue;
  VectorAddNaiveKernel<<<unsigned(blocks), kVectorAddBlock, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
