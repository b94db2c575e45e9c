// Vector add: the exact sum of two rounded inputs, rounded once to the
// output's dtype (OneRounding); the fp32 device reference rounds once too.
#include "kernels/vector_add/tolerances.h"

namespace kbench::kernels {

OpTolerances VectorAddTolerances(DType dtype) {
  return WithAgainstReference(OneRounding(dtype), OneRounding(DType::kFp32));
}

}  // namespace kbench::kernels
