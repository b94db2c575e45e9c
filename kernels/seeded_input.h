// Inputs made from a seed by a counter-based generator: element i of stream s
// is a pure function of (seed, s, i), so the CPU reference, the CPU backend
// and a GPU kernel all see the same data without sharing a buffer, and any
// run can be reproduced from its seed. Values are uniform in [-1, 1)
// (kSeededInputBound bounds their magnitude).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define KBENCH_HOST_DEVICE __host__ __device__
#else
#define KBENCH_HOST_DEVICE
#endif

namespace kbench::kernels {

// Streams of one problem: which tensor an element belongs to.
enum class InputStream : uint32_t { kA = 0, kB = 1, kQ = 2, kK = 3, kV = 4 };

// The tensor's name as the ops' ABIs call it: "a", "b", "q", "k", "v".
const char* InputStreamName(InputStream stream);

KBENCH_HOST_DEVICE inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// |SeededValue| < kSeededInputBound, for kernels told a bound on their inputs
// (fused fp32 attention's scaling, kernels/cuda/attention/attention.h).
inline constexpr float kSeededInputBound = 1.0f;

// Uniform in [-1, 1), with 24 random bits so the value is exact in fp32.
KBENCH_HOST_DEVICE inline float SeededValue(uint64_t seed, InputStream stream, uint64_t index) {
  const uint64_t key = SplitMix64(seed ^ (0xA0761D6478BD642Full * (uint64_t(stream) + 1)));
  const uint64_t bits = SplitMix64(key + index);
  return float(int64_t(bits >> 40) - (int64_t(1) << 23)) * (1.0f / 8388608.0f);
}

// Fills out[0, count) with elements [first, first + count) of the stream.
void FillSeeded(uint64_t seed, InputStream stream, uint64_t first, uint64_t count, float* out);

}  // namespace kbench::kernels
