// Vector add, c = a + b over n elements: the first lesson (a grid of blocks
// over the data with a tail mask; the bandwidth ceiling sets the time).
#pragma once

#include "proto/ops/op.h"

namespace kbench::proto::ops {

const Op& VectorAddOp();

// Vector add's variants: a value is the variant's id (VariantSpec::id),
// its position in VectorAddOp().variants(), which is built from this enum
// (VariantTable); the backends run variants by these.
enum VectorAddVariant : int { kVectorAddNaive, kVectorAddVectorized };

}  // namespace kbench::proto::ops
