// The head dims the fused CUDA attention kernels are specialised for: the
// one list that the attention op (server/ops/attention_op.cc) offers and the
// kernels' dispatcher (kernels/cuda/attention_fused.cc) accepts. No CUDA
// here, so the op and the client can read it in any build.
#pragma once

namespace kbench::kernels {

inline constexpr int kFusedCudaHeadDims[] = {64, 128};

}  // namespace kbench::kernels
