#include "kernels/attention/cpu_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace kbench::kernels {

namespace {
float Scale(const AttentionShape& shape) { return 1.0f / std::sqrt(float(shape.head_dim)); }
}  // namespace

void AttentionNaiveCpu(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       float* scores, float* o) {
  const int64_t n = shape.seq_len, d = shape.head_dim;
  const float scale = Scale(shape);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  // Pass 1: S = Q K^T * scale, every element, masked ones included.
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh) {
    const float* qh = q + bh * n * d;
    const float* kh = k + bh * n * d;
    float* s = scores + bh * n * n;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float dot = 0;
        for (int64_t x = 0; x < d; ++x) dot += qh[i * d + x] * kh[j * d + x];
        s[i * n + j] = dot * scale;
      }
    }
  }
  // Pass 2: mask and softmax over each row of S, in place (S becomes P).
  for (int64_t row = 0; row < shape.BatchHeads() * n; ++row) {
    float* s = scores + row * n;
    const int64_t i = row % n;
    if (shape.causal) std::fill(s + i + 1, s + n, neg_inf);
    float max = neg_inf;
    for (int64_t j = 0; j < n; ++j) max = std::max(max, s[j]);
    float sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      s[j] = std::exp(s[j] - max);
      sum += s[j];
    }
    const float inv = 1.0f / sum;
    for (int64_t j = 0; j < n; ++j) s[j] *= inv;
  }
  // Pass 3: O = P V.
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh) {
    const float* p = scores + bh * n * n;
    const float* vh = v + bh * n * d;
    float* oh = o + bh * n * d;
    for (int64_t i = 0; i < n; ++i) {
      float* out = oh + i * d;
      std::fill(out, out + d, 0.0f);
      for (int64_t j = 0; j < n; ++j) {
        const float pij = p[i * n + j];
        for (int64_t x = 0; x < d; ++x) out[x] += pij * vh[j * d + x];
      }
    }
  }
}

void AttentionFusedCpu(const AttentionShape& shape, const float* q, const float* k, const float* v,
                       float* o) {
  const int64_t n = shape.seq_len, d = shape.head_dim;
  const float scale = Scale(shape);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::vector<float> tile(kCpuBlockQ * kCpuBlockK);
  std::vector<float> acc(kCpuBlockQ * d);
  std::vector<float> row_max(kCpuBlockQ), row_sum(kCpuBlockQ);
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh) {
    const float* qh = q + bh * n * d;
    const float* kh = k + bh * n * d;
    const float* vh = v + bh * n * d;
    float* oh = o + bh * n * d;
    for (int64_t q0 = 0; q0 < n; q0 += kCpuBlockQ) {
      const int64_t rows = std::min(kCpuBlockQ, n - q0);  // tail block
      std::fill(acc.begin(), acc.end(), 0.0f);
      std::fill(row_max.begin(), row_max.end(), neg_inf);
      std::fill(row_sum.begin(), row_sum.end(), 0.0f);
      // Causal: keys past the block's last query are all masked.
      const int64_t k_end = shape.causal ? q0 + rows : n;
      for (int64_t k0 = 0; k0 < k_end; k0 += kCpuBlockK) {
        const int64_t cols = std::min(kCpuBlockK, k_end - k0);
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = q0 + r;
          float* s = tile.data() + r * kCpuBlockK;
          float tile_max = neg_inf;
          for (int64_t c = 0; c < cols; ++c) {
            const int64_t j = k0 + c;
            if (shape.causal && j > i) {
              s[c] = neg_inf;
              continue;
            }
            float dot = 0;
            for (int64_t x = 0; x < d; ++x) dot += qh[i * d + x] * kh[j * d + x];
            s[c] = dot * scale;
            tile_max = std::max(tile_max, s[c]);
          }
          if (tile_max == neg_inf) continue;  // whole row of the tile masked
          const float new_max = std::max(row_max[r], tile_max);
          const float correction = std::exp(row_max[r] - new_max);
          float* a = acc.data() + r * d;
          for (int64_t x = 0; x < d; ++x) a[x] *= correction;
          float sum = row_sum[r] * correction;
          for (int64_t c = 0; c < cols; ++c) {
            const float p = std::exp(s[c] - new_max);  // exp(-inf) = 0
            sum += p;
            const float* vj = vh + (k0 + c) * d;
            for (int64_t x = 0; x < d; ++x) a[x] += p * vj[x];
          }
          row_sum[r] = sum;
          row_max[r] = new_max;
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        const float inv = 1.0f / row_sum[r];
        for (int64_t x = 0; x < d; ++x) oh[(q0 + r) * d + x] = acc[r * d + x] * inv;
      }
    }
  }
}

}  // namespace kbench::kernels
