// Fill kernels for seeded inputs (seeded_fill.h). Not timed: they run once
// when a workload is prepared. Grid-stride with at most 64 Ki blocks.
#include <cuda_fp16.h>

#include "kernels/cuda/seeded_fill.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 65536;

template <typename T>
__device__ T Convert(float x);
template <>
__device__ float Convert<float>(float x) {
  return x;
}
template <>
__device__ __half Convert<__half>(float x) {
  return __float2half_rn(x);
}

template <typename T>
__global__ void FillSeededKernel(uint64_t seed, InputStream input,
                                 uint64_t first, T* out, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = Convert<T>(SeededValue(seed, input, first + uint64_t(i)));
}

template <typename T>
cudaError_t Launch(uint64_t seed, InputStream input, uint64_t first, T* out,
                   int64_t n, cudaStream_t stream) {
  if (n < 1) return cudaErrorInvalidValue;
  int64_t blocks = (n + kBlock - 1) / kBlock;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  FillSeededKernel<T>
      <<<unsigned(blocks), kBlock, 0, stream>>>(seed, input, first, out, n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFillSeeded(uint64_t seed, InputStream input, uint64_t first,
                             float* out, int64_t n, cudaStream_t stream) {
  return Launch(seed, input, first, out, n, stream);
}

cudaError_t LaunchFillSeededHalf(uint64_t seed, InputStream input,
                                 uint64_t first, void* out, int64_t n,
                                 cudaStream_t stream) {
  return Launch(seed, input, first, static_cast<__half*>(out), n, stream);
}

}  // namespace kbench::kernels::cuda
