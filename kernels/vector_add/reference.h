// The double-precision reference of vector add, computed from the seed
// rather than from any backend's buffers, so it is independent of the code
// under test. Inputs are rounded to the problem's dtype first (what the
// kernel reads), then promoted to double.
#pragma once

#include <cstdint>

#include "kernels/dtype.h"

namespace kbench::kernels {

// Reference of element i of c = a + b.
double VectorAddReference(uint64_t seed, DType dtype, uint64_t i);

}  // namespace kbench::kernels
