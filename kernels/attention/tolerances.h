// What attention's output is held to (kernels/tolerances.h says what the
// three tolerances are; tolerances.cc here derives the bounds).
#pragma once

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"
#include "kernels/tolerances.h"

namespace kbench::kernels {

// O = softmax(Q K^T / sqrt(d) [+ mask]) V over inputs of `dtype` in
// [-1, 1) (kernels/seeded_input.h), reductions of length head_dim and
// seq_len. fp8 inputs (E4M3 with per-tensor scales) give a bf16 output
// (AttentionOutputDType).
OpTolerances AttentionTolerances(DType dtype, const AttentionShape& shape);

// The dtype of O for inputs of `dtype`: the same, but bf16 for fp8, as
// FlashAttention-3's FP8 forward pass writes it.
DType AttentionOutputDType(DType dtype);

}  // namespace kbench::kernels
