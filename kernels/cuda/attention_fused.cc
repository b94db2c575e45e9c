// LaunchAttentionFused (attention.h): picks the fused kernel for the dtype,
// fp32 on CUDA cores or fp16/bf16 on tensor cores in its default tiling.
#include <algorithm>
#include <iterator>

#include "kernels/cuda/attention.h"
#include "kernels/cuda/attention_fused_mma.h"

namespace kbench::kernels::cuda {

bool FusedAttentionSupports(int64_t head_dim) {
  return std::find(std::begin(kFusedCudaHeadDims), std::end(kFusedCudaHeadDims),
                   head_dim) != std::end(kFusedCudaHeadDims);
}

cudaError_t LaunchAttentionFused(const AttentionShape& shape, DType dtype,
                                 const AttentionTensors& tensors,
                                 cudaStream_t stream) {
  if (!FusedAttentionSupports(shape.head_dim)) return cudaErrorInvalidValue;
  if (dtype == DType::kFp32)
    return LaunchAttentionFusedFp32(shape, tensors, kDefaultFp32Config, stream);
  return LaunchAttentionFusedMma(shape, dtype, tensors, kDefaultMmaConfig,
                                 stream);
}

}  // namespace kbench::kernels::cuda
