// LaunchFp32Range (attention_fp32_range.h): a memory-bound max over the three
// inputs, float4 loads, one atomicMax a block and tensor on the float bits
// (non-negative floats order as their bits do).
#include "kernels/cuda/attention/attention_fp32_range.h"

#include <algorithm>

#include "kernels/cuda/attention/attention_split_kv.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kThreads = 256;
// Blocks a tensor at most: enough to keep HBM busy (several per SM), few
// enough that the atomics are negligible.
constexpr int64_t kMostBlocks = 1024;

__device__ __forceinline__ uint32_t AbsBits(float x) { return __float_as_uint(x) & 0x7fffffffu; }

// blockIdx.y: the tensor (0 Q, 1 K, 2 V).
__global__ void __launch_bounds__(kThreads)
    Fp32RangeKernel(const float* __restrict__ q, const float* __restrict__ k,
                    const float* __restrict__ v, int64_t count4, uint32_t* __restrict__ range) {
  const float4* x = reinterpret_cast<const float4*>(blockIdx.y == 0 ? q : blockIdx.y == 1 ? k : v);
  uint32_t m = 0;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < count4;
       i += int64_t(gridDim.x) * kThreads) {
    const float4 a = __ldg(x + i);
    m = max(m, max(max(AbsBits(a.x), AbsBits(a.y)), max(AbsBits(a.z), AbsBits(a.w))));
  }
  for (int offset = 16; offset > 0; offset /= 2) m = max(m, __shfl_xor_sync(~0u, m, offset));
  __shared__ uint32_t warps[kThreads / 32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < kThreads / 32; ++w) m = max(m, warps[w]);
  atomicMax(range + blockIdx.y, m);
}

}  // namespace

int64_t Fp32RangeOffset(const AttentionShape& shape, int splits) {
  return (SplitKvWorkspaceBytes(shape, splits) + 255) / 256 * 256;
}

cudaError_t LaunchFp32Range(const float* q, const float* k, const float* v, int64_t count,
                            uint32_t* range, cudaStream_t stream) {
  if (count < 1 || count % 4 != 0 || range == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t e = cudaMemsetAsync(range, 0, 3 * sizeof(uint32_t), stream); e != cudaSuccess)
    return e;
  const int64_t count4 = count / 4;
  const int64_t blocks = std::min(kMostBlocks, (count4 + 4 * kThreads - 1) / (4 * kThreads));
  Fp32RangeKernel<<<dim3(unsigned(blocks), 3), kThreads, 0, stream>>>(q, k, v, count4, range);
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
