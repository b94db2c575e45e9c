// The CPU backend's device reference of attention: the plainest fp32 code,
// sharing nothing with the variants (cpu_attention.cc), so that a bug in a
// variant cannot also be in its reference. Every element of a variant's
// output is compared with it (server/worker/device.h,
// Workload::CompareWithReference); it is itself checked against the
// double-precision reference (reference.h) on sampled rows. The CUDA
// backend's reference kernel (kernels/cuda/attention/reference_kernel.h)
// follows the same algorithm.
#pragma once

#include <cstdint>

#include "kernels/attention/attention_shape.h"

namespace kbench::kernels {

// O = softmax(Q K^T / sqrt(d) [+ causal mask]) V, one query row at a time,
// two passes over its keys: scores and their max, then exp(s - max), their
// sum and the weighted sum of V rows, divided by the sum at the end. fp32
// accumulation, keys in order. Tensors as AttentionShape says.
void AttentionSimpleReference(const AttentionShape& shape, const float* q, const float* k,
                              const float* v, float* o);

}  // namespace kbench::kernels
