// What each op's output is held to, per dtype: a per-element test
// |out - ref| <= atol + rtol * |ref| and a relative L2 bound, derived from
// the dtype's unit roundoff (dtype.h) and the op's reduction lengths. The
// derivations are written next to the formulas in tolerances.cc; the ops
// (proto/ops/*_op.cc) and the tools take their tolerances from here only.
//
// Three comparisons, three tolerances:
//   variant            a variant's output against the exact result (the
//                      double-precision host reference, reference.h);
//   reference          the device's fp32 reference (simple_reference.h on
//                      the CPU; its CUDA twin) against the exact result;
//   against_reference  a variant against the device reference, every
//                      element: the sum of the two above (triangle
//                      inequality: |out - dev| <= |out - x| + |dev - x|).
#pragma once

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"
#include "kernels/verify.h"

namespace kbench::kernels {

struct OpTolerances {
  Tolerance variant;
  Tolerance reference;
  Tolerance against_reference;
};

// c = a + b over inputs of `dtype`.
OpTolerances VectorAddTolerances(DType dtype);

// O = softmax(Q K^T / sqrt(d) [+ mask]) V over inputs of `dtype` in
// [-1, 1) (kernels/seeded_input.h), reductions of length head_dim and
// seq_len.
OpTolerances AttentionTolerances(DType dtype, const AttentionShape& shape);

}  // namespace kbench::kernels
