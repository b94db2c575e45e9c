// The head dims the fused CUDA attention kernels run: every multiple of 8
// from 32 to 256 (tiles specialised for 64, 128 and 256; the others padded
// up to the next). The one list that the attention op (proto/ops/attention/
// attention_op.cc) offers and the kernels' dispatcher (kernels/cuda/attention/
// attention_fused.cc) accepts. No CUDA here, so the op and the client can
// read it in any build.
#pragma once

#include <array>

namespace kbench::kernels {

inline constexpr int kFusedCudaMinHeadDim = 32;
inline constexpr int kFusedCudaMaxHeadDim = 256;
inline constexpr int kFusedCudaHeadDimStep = 8;

inline constexpr std::array<int, (kFusedCudaMaxHeadDim - kFusedCudaMinHeadDim) /
                                         kFusedCudaHeadDimStep +
                                     1>
    kFusedCudaHeadDims = [] {
      std::array<int, (kFusedCudaMaxHeadDim - kFusedCudaMinHeadDim) /
                              kFusedCudaHeadDimStep +
                          1>
          dims{};
      for (size_t i = 0; i < dims.size(); ++i)
        dims[i] = kFusedCudaMinHeadDim + int(i) * kFusedCudaHeadDimStep;
      return dims;
    }();

}  // namespace kbench::kernels
