// Device side of split-KV (attention_split_kv.h) shared by the fused
// kernels: which key tiles a split owns, and where its partials go.
#pragma once

#include <cmath>
#include <cstdint>

namespace kbench::kernels::cuda {

// The partials of one launch; splits == 1 means no split (o and lse unused).
struct SplitKvPartials {
  int splits = 1;
  float* o = nullptr;    // [splits][rows][head_dim]
  float* lse = nullptr;  // [splits][rows], log2 domain
};

// Key tiles [begin, end) of split `split` out of `tiles`: equal shares of
// ceil(tiles / splits), the last ones possibly short or empty.
struct KvRange {
  int begin, end;
};
__device__ __forceinline__ KvRange SplitKvRange(int tiles, int splits,
                                                 int split) {
  const int per = (tiles + splits - 1) / splits;
  const int begin = min(tiles, split * per);
  return {begin, min(tiles, begin + per)};
}

// lse in the log2 domain of a row whose scores' max is `row_max` (raw score)
// and whose sum of exp2(s * scale_log2 - row_max * scale_log2) is `sum`.
__device__ __forceinline__ float SplitKvLse(float row_max, float sum,
                                            float scale_log2) {
  return sum > 0 ? fmaf(row_max, scale_log2, log2f(sum)) : -INFINITY;
}

}  // namespace kbench::kernels::cuda
