// The ranges of fused fp32's inputs (attention_fused_mma.cu's
// FusedFp32Kernel, 3xFP16), from which the kernel scales each of Q, K and
// V by a power of two into fp16's range (its pieces then hold any finite
// fp32 input; see attention_fused_mma.h): a bound the caller knows
// (AttentionTensors::input_bound), or each tensor's largest magnitude
// found by a pass before the kernel.
//
// Contract: the pass's three words live in fused fp32's workspace after
// the split-KV partials (Fp32RangeOffset); LaunchFp32Range zeroes and
// fills them on `stream` before each launch of the kernel, so they need no
// initial value.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/attention/attention_shape.h"

namespace kbench::kernels::cuda {

// What the kernel scales by: the float bits of each tensor's largest
// magnitude in measured[0..2] (Q, K, V) when measured is set, else
// bound_bits (a bound on all three).
struct Fp32Range {
  const uint32_t* measured = nullptr;
  uint32_t bound_bits = 0;
};

// The range words' bytes (three used; 256 keeps what follows aligned).
inline constexpr int64_t kFp32RangeBytes = 256;

// Where the range words start in fused fp32's workspace with `splits` key
// splits: after SplitKvWorkspaceBytes(shape, splits), rounded up to 256.
int64_t Fp32RangeOffset(const AttentionShape& shape, int splits);

// Enqueues on `stream`: range[0..2] = the float bits of max |x| over Q, K
// and V (`count` elements each, a multiple of 4, 16-byte aligned); a NaN
// input leaves NaN's bits, above every finite one.
cudaError_t LaunchFp32Range(const float* q, const float* k, const float* v, int64_t count,
                            uint32_t* range, cudaStream_t stream);

}  // namespace kbench::kernels::cuda
