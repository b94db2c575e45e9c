#include "kernels/vector_add/cpu_vector_add.h"

#include <cstring>

namespace kbench::kernels {

// The build uses -O2 without -ftree-vectorize on this file's loop (see
// kernels/CMakeLists.txt), so "naive" stays a scalar loop.
void VectorAddNaiveCpu(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

namespace {
struct Float4 {
  float x, y, z, w;
};
}  // namespace

void VectorAddVectorizedCpu(const float* a, const float* b, float* c, int64_t n) {
  const int64_t chunks = n / 4;
  for (int64_t i = 0; i < chunks; ++i) {
    Float4 va, vb;
    std::memcpy(&va, a + 4 * i, sizeof va);
    std::memcpy(&vb, b + 4 * i, sizeof vb);
    const Float4 vc{va.x + vb.x, va.y + vb.y, va.z + vb.z, va.w + vb.w};
    std::memcpy(c + 4 * i, &vc, sizeof vc);
  }
  for (int64_t i = 4 * chunks; i < n; ++i) c[i] = a[i] + b[i];
}

}  // namespace kbench::kernels
