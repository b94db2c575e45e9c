// The head dims attention runs. No CUDA here, so the op, the client and the
// kernels read the same constants in any build.
//   kMaxAttentionHeadDim: the largest head_dim of any attention kernel: the
//     default of Limits.max_head_dim (proto/ops/attention/attention_op.cc)
//     and the most the CUDA device reference holds of a row in registers
//     (kernels/cuda/attention/reference_kernel.h).
//   kFusedCudaHeadDims: the head dims the fused CUDA kernels run: every
//     multiple of 8 from 32 to 256 (tiles specialised for 64, 128 and 256;
//     the others padded up to the next). The one list that the attention op
//     offers and the kernels' dispatcher (kernels/cuda/attention/
//     attention_fused.cc, FusedAttentionSupports) accepts.
#pragma once

#include <array>

namespace kbench::kernels {

inline constexpr int kMaxAttentionHeadDim = 256;

inline constexpr int kFusedCudaMinHeadDim = 32;
inline constexpr int kFusedCudaMaxHeadDim = 256;
inline constexpr int kFusedCudaHeadDimStep = 8;
static_assert(kFusedCudaMaxHeadDim <= kMaxAttentionHeadDim);

inline constexpr std::array<
    int, (kFusedCudaMaxHeadDim - kFusedCudaMinHeadDim) / kFusedCudaHeadDimStep + 1>
    kFusedCudaHeadDims = [] {
      std::array<int, (kFusedCudaMaxHeadDim - kFusedCudaMinHeadDim) / kFusedCudaHeadDimStep + 1>
          dims{};
      for (size_t i = 0; i < dims.size(); ++i)
        dims[i] = kFusedCudaMinHeadDim + int(i) * kFusedCudaHeadDimStep;
      return dims;
    }();

}  // namespace kbench::kernels
