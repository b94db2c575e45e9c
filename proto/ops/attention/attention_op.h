// Attention, O = softmax(Q K^T / sqrt(d) [+ causal mask]) V: the lesson of
// fusion (naive stores the score matrix; fused never writes it to memory).
#pragma once

#include "kbench/v1/kbench.pb.h"
#include "kernels/attention/attention_shape.h"
#include "proto/ops/op.h"

namespace kbench::proto::ops {

const Op& AttentionOp();

// Attention's variants: a value is the variant's id (VariantSpec::id), its
// position in AttentionOp().variants(), which is built from this enum
// (VariantTable); the backends run variants by these.
enum AttentionVariant : int { kAttentionNaive, kAttentionFused };

// The shape of an attention problem.
kernels::AttentionShape ShapeOf(const v1::AttentionProblem& problem);

// Rows of attention output checked against the double reference: all rows
// when the problem has at most this many, else a seeded sample of this many.
inline constexpr int64_t kMaxVerifiedAttentionRows = 256;

}  // namespace kbench::proto::ops
