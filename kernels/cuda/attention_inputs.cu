// Seeded attention inputs made on the device in the problem's dtype: element
// i is SeededValue(seed, stream, i) rounded to nearest even, the value the
// reference (kernels/reference.h) rounds on the host. Not timed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/cuda/attention.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 65536;

template <typename T>
__device__ T FromFloat(float x);
template <>
__device__ float FromFloat<float>(float x) { return x; }
template <>
__device__ __half FromFloat<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

template <typename T>
__global__ void FillKernel(uint64_t seed, InputStream input, T* out,
                           int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = FromFloat<T>(SeededValue(seed, input, uint64_t(i)));
}

template <typename T>
cudaError_t Fill(uint64_t seed, InputStream input, void* out, int64_t n,
                 cudaStream_t stream) {
  const int64_t blocks = std::min((n + kBlock - 1) / kBlock, kMaxBlocks);
  FillKernel<T><<<unsigned(blocks), kBlock, 0, stream>>>(
      seed, input, static_cast<T*>(out), n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFillSeededAs(DType dtype, uint64_t seed, InputStream input,
                               void* out, int64_t n, cudaStream_t stream) {
  if (n < 1) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp32: return Fill<float>(seed, input, out, n, stream);
    case DType::kFp16: return Fill<__half>(seed, input, out, n, stream);
    case DType::kBf16: return Fill<__nv_bfloat16>(seed, input, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
