#include "kernels/vector_add/reference.h"

#include "kernels/seeded_input.h"

namespace kbench::kernels {

double VectorAddReference(uint64_t seed, DType dtype, uint64_t i) {
  return double(RoundTo(dtype, SeededValue(seed, InputStream::kA, i))) +
         double(RoundTo(dtype, SeededValue(seed, InputStream::kB, i)));
}

}  // namespace kbench::kernels
