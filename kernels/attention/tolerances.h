// What attention's output is held to (kernels/tolerances.h says what the
// three tolerances are; tolerances.cc here derives the bounds).
#pragma once

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"
#include "kernels/tolerances.h"

namespace kbench::kernels {

// O = softmax(Q K^T / sqrt(d) [+ mask]) V over inputs of `dtype` in
// [-1, 1) (kernels/seeded_input.h), reductions of length head_dim and
// seq_len.
OpTolerances AttentionTolerances(DType dtype, const AttentionShape& shape);

}  // namespace kbench::kernels
