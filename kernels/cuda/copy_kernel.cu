#include "kernels/cuda/copy_kernel.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;

__global__ void CopyKernel(const float4* __restrict__ src, float4* __restrict__ dst,
                           int64_t vectors, const float* __restrict__ src_tail,
                           float* __restrict__ dst_tail, int tail) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride)
    dst[i] = src[i];
  if (blockIdx.x == 0 && int(threadIdx.x) < tail) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
}

}  // namespace

cudaError_t LaunchCopy(const float* src, float* dst, int64_t n, int blocks, cudaStream_t stream) {
  if (n < 0 || blocks < 1) return cudaErrorInvalidValue;
  const int64_t vectors = n / 4;
  const int tail = int(n % 4);
  CopyKernel<<<blocks, kBlock, 0, stream>>>(reinterpret_cast<const float4*>(src),
                                            reinterpret_cast<float4*>(dst), vectors,
                                            src + vectors * 4, dst + vectors * 4, tail);
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
