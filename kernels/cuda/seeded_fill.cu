// Fill and check kernels for seeded inputs (seeded_fill.h): fp32, fp16,
// bf16 and fp8, one grid-stride kernel per dtype with at most 64 Ki blocks.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "kernels/cuda/dtype_convert.cuh"
#include "kernels/cuda/seeded_fill.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 65536;

template <typename T>
__global__ void FillSeededKernel(uint64_t seed, InputStream input, uint64_t first, T* out,
                                 int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = FromFloat<T>(SeededValue(seed, input, first + uint64_t(i)));
}

// An element's bits, so that a NaN written over an input counts too.
template <typename T>
__device__ auto Bits(T value) {
  if constexpr (sizeof(T) == 4) {
    unsigned bits;
    memcpy(&bits, &value, sizeof(bits));
    return bits;
  } else if constexpr (sizeof(T) == 2) {
    unsigned short bits;
    memcpy(&bits, &value, sizeof(bits));
    return bits;
  } else {
    static_assert(sizeof(T) == 1);
    unsigned char bits;
    memcpy(&bits, &value, sizeof(bits));
    return bits;
  }
}

template <typename T>
__global__ void CountSeededChangesKernel(uint64_t seed, InputStream input, uint64_t first,
                                         const T* data, int64_t n, unsigned long long* count) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  unsigned long long changed = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T drawn = FromFloat<T>(SeededValue(seed, input, first + uint64_t(i)));
    changed += Bits(drawn) != Bits(data[i]);
  }
  if (changed != 0) atomicAdd(count, changed);
}

int64_t Blocks(int64_t n) { return std::min((n + kBlock - 1) / kBlock, kMaxBlocks); }

template <typename T>
cudaError_t CountChanges(uint64_t seed, InputStream input, uint64_t first, const void* data,
                         int64_t n, unsigned long long* count, cudaStream_t stream) {
  CountSeededChangesKernel<T><<<unsigned(Blocks(n)), kBlock, 0, stream>>>(
      seed, input, first, static_cast<const T*>(data), n, count);
  return cudaGetLastError();
}

template <typename T>
cudaError_t Fill(uint64_t seed, InputStream input, uint64_t first, void* out, int64_t n,
                 cudaStream_t stream) {
  FillSeededKernel<T>
      <<<unsigned(Blocks(n)), kBlock, 0, stream>>>(seed, input, first, static_cast<T*>(out), n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFillSeeded(DType dtype, uint64_t seed, InputStream input, uint64_t first,
                             void* out, int64_t n, cudaStream_t stream) {
  if (n < 1) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp32:
      return Fill<float>(seed, input, first, out, n, stream);
    case DType::kFp16:
      return Fill<__half>(seed, input, first, out, n, stream);
    case DType::kBf16:
      return Fill<__nv_bfloat16>(seed, input, first, out, n, stream);
    case DType::kFp8:
      return Fill<__nv_fp8_e4m3>(seed, input, first, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchCountSeededChanges(DType dtype, uint64_t seed, InputStream input, uint64_t first,
                                     const void* data, int64_t n, unsigned long long* count,
                                     cudaStream_t stream) {
  if (n < 1) return cudaErrorInvalidValue;
  switch (dtype) {
    case DType::kFp32:
      return CountChanges<float>(seed, input, first, data, n, count, stream);
    case DType::kFp16:
      return CountChanges<__half>(seed, input, first, data, n, count, stream);
    case DType::kBf16:
      return CountChanges<__nv_bfloat16>(seed, input, first, data, n, count, stream);
    case DType::kFp8:
      return CountChanges<__nv_fp8_e4m3>(seed, input, first, data, n, count, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace kbench::kernels::cuda
