#include "kernels/attention/simple_reference.h"

#include <cmath>
#include <vector>

namespace kbench::kernels {

void AttentionSimpleReference(const AttentionShape& shape, const float* q, const float* k,
                              const float* v, float* o) {
  const int64_t n = shape.seq_len, d = shape.head_dim;
  const float scale = 1.0f / std::sqrt(float(d));
  std::vector<float> s(n), acc(d);
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh) {
    const float* qh = q + bh * n * d;
    const float* kh = k + bh * n * d;
    const float* vh = v + bh * n * d;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t keys = shape.causal ? i + 1 : n;
      float max = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        float dot = 0;
        for (int64_t x = 0; x < d; ++x) dot += qh[i * d + x] * kh[j * d + x];
        s[j] = dot * scale;
        if (s[j] > max) max = s[j];
      }
      float sum = 0;
      for (int64_t x = 0; x < d; ++x) acc[x] = 0;
      for (int64_t j = 0; j < keys; ++j) {
        const float p = std::exp(s[j] - max);
        sum += p;
        for (int64_t x = 0; x < d; ++x) acc[x] += p * vh[j * d + x];
      }
      for (int64_t x = 0; x < d; ++x) o[(bh * n + i) * d + x] = acc[x] / sum;
    }
  }
}

}  // namespace kbench::kernels
