// What the fused kernels share (attention_fused_*.cu): the softmax scale in
// the log2 domain, and split-KV (attention_split_kv.h): which key tiles a
// split owns, where its partials go, and the lse they carry.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

#include "kernels/attention/attention_shape.h"

namespace kbench::kernels::cuda {

// log2(e) / sqrt(head_dim): softmax(s / sqrt(d)) is computed as
// exp2(s * scale_log2 - row_max * scale_log2).
inline float SoftmaxScaleLog2(int64_t head_dim) {
  return float(1.4426950408889634 / std::sqrt(double(head_dim)));
}

// The partials of one launch; splits == 1 means no split (o and lse unused).
struct SplitKvPartials {
  int splits = 1;
  float* o = nullptr;    // [splits][rows][head_dim]
  float* lse = nullptr;  // [splits][rows], log2 domain
};

// The partials of `splits` splits in `workspace`, laid out as
// attention_split_kv.h says (splits == 1: none, workspace unused). False
// when splits > 1 and there is no workspace.
inline bool SplitKvPartialsIn(const AttentionShape& shape, int splits, void* workspace,
                              SplitKvPartials* part) {
  *part = SplitKvPartials{};
  if (splits <= 1) return true;
  if (workspace == nullptr) return false;
  part->splits = splits;
  part->o = static_cast<float*>(workspace);
  part->lse = part->o + splits * shape.BatchHeads() * shape.seq_len * shape.head_dim;
  return true;
}

// Key tiles [begin, end) of split `split` out of `tiles`: equal shares of
// ceil(tiles / splits), the last ones possibly short or empty.
struct KvRange {
  int begin, end;
};
__device__ __forceinline__ KvRange SplitKvRange(int tiles, int splits, int split) {
  const int per = (tiles + splits - 1) / splits;
  const int begin = min(tiles, split * per);
  return {begin, min(tiles, begin + per)};
}

// lse in the log2 domain of a row whose scores' max is `row_max` (raw score)
// and whose sum of exp2(s * scale_log2 - row_max * scale_log2) is `sum`.
__device__ __forceinline__ float SplitKvLse(float row_max, float sum, float scale_log2) {
  return sum > 0 ? fmaf(row_max, scale_log2, log2f(sum)) : -INFINITY;
}

}  // namespace kbench::kernels::cuda
