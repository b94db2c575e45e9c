#include "kernels/seeded_input.h"

namespace kbench::kernels {

void FillSeeded(uint64_t seed, InputStream stream, uint64_t first, uint64_t count, float* out) {
  for (uint64_t i = 0; i < count; ++i) out[i] = SeededValue(seed, stream, first + i);
}

}  // namespace kbench::kernels
