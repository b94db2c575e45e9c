// Vector add, c = a + b, on the CPU. Both variants compute the same function
// for any n >= 0; they differ only in how the loop is written, mirroring the
// GPU variants of the same names:
//   naive:      one element per iteration (the direct translation).
//   vectorized: four elements per iteration through 16-byte chunks, then a
//               scalar tail for the n % 4 last elements.
// Exact in fp32 (one rounding per element): held to the fp32 tolerance.
#pragma once

#include <cstdint>

namespace kbench::kernels {

void VectorAddNaiveCpu(const float* a, const float* b, float* c, int64_t n);
void VectorAddVectorizedCpu(const float* a, const float* b, float* c, int64_t n);

}  // namespace kbench::kernels
