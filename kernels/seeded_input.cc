#include "kernels/seeded_input.h"

namespace kbench::kernels {

const char* InputStreamName(InputStream stream) {
  switch (stream) {
    case InputStream::kA:
      return "a";
    case InputStream::kB:
      return "b";
    case InputStream::kQ:
      return "q";
    case InputStream::kK:
      return "k";
    case InputStream::kV:
      return "v";
  }
  return "?";
}

void FillSeeded(uint64_t seed, InputStream stream, uint64_t first, uint64_t count, float* out) {
  for (uint64_t i = 0; i < count; ++i) out[i] = SeededValue(seed, stream, first + i);
}

}  // namespace kbench::kernels
