// Naive attention's first step for fp8 inputs (attention.h): each E4M3
// element times kFp8InputScale, written as bf16. Exact: an E4M3 value has 4
// significant bits and, times 2^-8, stays far inside bf16's exponent range.
// A grid-stride loop over at most 64 Ki blocks of 256 threads, one element
// a thread a step (naive's cost is its two GEMMs and S, not this pass).
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda/dtype_convert.cuh"

namespace kbench::kernels::cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxBlocks = 65536;

__global__ void WidenFp8Kernel(const __nv_fp8_e4m3* in, __nv_bfloat16* out, int64_t n) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = FromFloat<__nv_bfloat16>(ToFloat(in[i]));
}

}  // namespace

cudaError_t LaunchAttentionWidenFp8(int64_t elements, const void* in, void* out,
                                    cudaStream_t stream) {
  if (elements < 1) return cudaErrorInvalidValue;
  const int64_t blocks = std::min((elements + kBlock - 1) / kBlock, kMaxBlocks);
  WidenFp8Kernel<<<unsigned(blocks), kBlock, 0, stream>>>(
      static_cast<const __nv_fp8_e4m3*>(in), static_cast<__nv_bfloat16*>(out), elements);
  return cudaGetLastError();
}

}  // namespace kbench::kernels::cuda
