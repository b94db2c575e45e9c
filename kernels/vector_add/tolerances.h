// What vector add's output is held to (kernels/tolerances.h says what the
// three tolerances are).
#pragma once

#include "kernels/dtype.h"
#include "kernels/tolerances.h"

namespace kbench::kernels {

// c = a + b over inputs of `dtype`.
OpTolerances VectorAddTolerances(DType dtype);

}  // namespace kbench::kernels
