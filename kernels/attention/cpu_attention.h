// Attention on the CPU, fp32: O = softmax(Q K^T * scale [+ causal mask]) V
// with scale = 1 / sqrt(head_dim), for tensors laid out as AttentionShape
// says. Both variants compute the same function for any shape:
//   naive: the TinyGPT replica. S = Q K^T * scale is written in full to
//          `scores` (shape.ScoreElements() floats), then a mask + softmax
//          pass over S, then O = P V: three passes through memory.
//   fused: FlashAttention-style. Query rows in blocks of kCpuBlockQ, keys in
//          blocks of kCpuBlockK with an online softmax (running max and sum),
//          so no more than one kCpuBlockQ x kCpuBlockK tile of S exists at a
//          time; key blocks wholly above the diagonal are skipped when causal.
// Accumulation in fp32; held to the fp32 attention tolerance (dtype.h).
#pragma once

#include <cstdint>

#include "kernels/attention/attention_shape.h"

namespace kbench::kernels {

inline constexpr int64_t kCpuBlockQ = 32;
inline constexpr int64_t kCpuBlockK = 64;

void AttentionNaiveCpu(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       float* scores, float* o);
void AttentionFusedCpu(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       float* o);

}  // namespace kbench::kernels
