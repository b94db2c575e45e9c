#include "kernels/vector_add/simple_reference.h"

namespace kbench::kernels {

void VectorAddSimpleReference(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

}  // namespace kbench::kernels
