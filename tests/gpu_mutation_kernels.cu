#include <cmath>

#include "tests/gpu_mutation_kernels.cuh"

namespace kbench::testing {
namespace {

constexpr int kTailTile = 64;

__global__ void MutantAttention(const float* q, const float* k, const float* v, float* o,
                                int64_t heads, int64_t n, int d, bool causal, float scale,
                                Mutation mutation) {
  const int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= heads * n) return;
  const int64_t head = row / n, i = row % n;
  if (mutation == Mutation::kUnwrittenTail && head == heads - 1 && i >= n - kTailTile) return;
  const float* qi = q + row * d;
  const float* kh = k + head * n * d;
  const float* vh = v + head * n * d;
  if (mutation == Mutation::kScale) scale *= 1.01f;
  int64_t keys = causal ? i + 1 : n;
  if (mutation == Mutation::kCausalOffByOne && causal && keys < n) ++keys;
  float max = -INFINITY;
  for (int64_t j = 0; j < keys; ++j) {
    float s = 0;
    for (int x = 0; x < d; ++x) s += qi[x] * kh[j * d + x];
    max = fmaxf(max, s * scale);
  }
  float sum = 0;
  for (int64_t j = 0; j < keys; ++j) {
    float s = 0;
    for (int x = 0; x < d; ++x) s += qi[x] * kh[j * d + x];
    sum += expf(s * scale - max);
  }
  for (int x = 0; x < d; ++x) {
    float acc = 0;
    for (int64_t j = 0; j < keys; ++j) {
      float s = 0;
      for (int y = 0; y < d; ++y) s += qi[y] * kh[j * d + y];
      acc += expf(s * scale - max) * vh[j * d + x];
    }
    o[row * d + x] = acc / sum;
  }
  if (mutation == Mutation::kOneElement && row == n / 2) o[row * d + 1] += 0.25f;
  if (mutation == Mutation::kLastHeadRow && head == heads - 1 && i == n / 3)
    for (int x = 0; x < d; ++x) o[row * d + x] = -o[row * d + x];
}

}  // namespace

cudaError_t LaunchMutantAttention(const kernels::AttentionShape& shape, const float* q,
                                  const float* k, const float* v, float* o, Mutation mutation,
                                  cudaStream_t stream) {
  const int64_t rows = shape.BatchHeads() * shape.seq_len;
  const float scale = float(1.0 / std::sqrt(double(shape.head_dim)));
  MutantAttention<<<unsigned((rows + 127) / 128), 128, 0, stream>>>(
      q, k, v, o, shape.BatchHeads(), shape.seq_len, int(shape.head_dim), shape.causal, scale,
      mutation);
  return cudaGetLastError();
}

}  // namespace kbench::testing
