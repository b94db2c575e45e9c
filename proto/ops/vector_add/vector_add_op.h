// Vector add, c = a + b over n elements: the first lesson (a grid of blocks
// over the data with a tail mask; the bandwidth ceiling sets the time).
#pragma once

#include "proto/ops/op.h"

namespace kbench::ops {

const Op& VectorAddOp();

// Variant ids (VariantSpec::id) of vector add, for the backends.
enum VectorAddVariant : int { kVectorAddNaive = 0, kVectorAddVectorized = 1 };

}  // namespace kbench::ops
