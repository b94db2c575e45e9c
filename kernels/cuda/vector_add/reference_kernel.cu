// The device reference of vector add (reference_kernel.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/dtype_convert.cuh"
#include "kernels/cuda/vector_add/reference_kernel.h"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;

template <typename T>
__global__ void VectorAddReferenceKernel(const T* a, const T* b, float* ref, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) ref[i] = ToFloat(a[i]) + ToFloat(b[i]);
}

int64_t Blocks(int64_t n, int per_block) { return (n + per_block - 1) / per_block; }

}  // namespace

cudaError_t LaunchVectorAddReference(DType dtype, const void* a, const void* b, float* ref,
                                     int64_t n, cudaStream_t stream) {
  if (n < 1 || Blocks(n, kBlock) > 0x7fffffff) return cudaErrorInvalidValue;
  const unsigned grid = unsigned(Blocks(n, kBlock));
  switch (dtype) {
    case DType::kFp32:
      VectorAddReferenceKernel<<<grid, kBlock, 0, stream>>>(static_cast<const float*>(a),
                                                            static_cast<const float*>(b), ref, n);
      break;
    case DType::kFp16:
      VectorAddReferenceKernel<<<grid, kBlock, 0, stream>>>(static_cast<const __half*>(a),
                                                            static_cast<const __half*>(b), ref, n);
      break;
    case DType::kBf16:
      VectorAddReferenceKernel<<<grid, kBlock, 0, stream>>>(
          static_cast<const __nv_bfloat16*>(a), static_cast<const __nv_bfloat16*>(b), ref, n);
      break;
    case DType::kFp8:  // vector add offers no fp8
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
