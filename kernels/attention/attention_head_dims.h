// The head dims attention runs. No CUDA here, so the op, the client and the
// kernels read the same constants in any build.
//   kMaxAttentionHeadDim: the largest head_dim of any attention kernel: the
//     default of Limits.max_head_dim (proto/ops/attention/attention_op.cc)
//     and the most the CUDA device reference holds of a row in registers
//     (kernels/cuda/attention/reference_kernel.h).
//   kFusedCudaHeadDims: the head dims the fused CUDA kernels run: every
//     multiple of 8 from 32 to 256 (tiles specialised for 64, 128 and 256,
//     and for 96 in the Hopper kernel; the others padded up to the next).
//     The one list that the attention op offers and the kernels'
//     dispatcher (kernels/cuda/attention/attention_fused.cc,
//     FusedAttentionSupports) accepts.
//   kFusedCudaFp8HeadDims: those of them it runs in fp8 (kernels/cuda/
//     attention/attention_fused_fp8.h): every multiple of 16 from 32 to 128
//     (an fp8 row is a multiple of the copy engine's 16 bytes; the tiles'
//     head dim is 128). The op refuses fp8 at others, FusedFp8Supports too.
#pragma once

#include <array>

namespace kbench::kernels {

inline constexpr int kMaxAttentionHeadDim = 256;

// kMin, kMin + kStep, ..., kMax.
template <int kMin, int kMax, int kStep>
constexpr std::array<int, (kMax - kMin) / kStep + 1> HeadDimRange() {
  std::array<int, (kMax - kMin) / kStep + 1> dims{};
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = kMin + int(i) * kStep;
  return dims;
}

inline constexpr auto kFusedCudaHeadDims = HeadDimRange<32, 256, 8>();
inline constexpr auto kFusedCudaFp8HeadDims = HeadDimRange<32, 128, 16>();
static_assert(kFusedCudaHeadDims.back() <= kMaxAttentionHeadDim);

}  // namespace kbench::kernels
