// The shape of one attention problem. Q, K, V and O are row-major
// [batch, heads, seq_len, head_dim] tensors.
#pragma once

#include <cstdint>

namespace kbench::kernels {

struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 1;
  int64_t seq_len = 1;
  int64_t head_dim = 1;
  bool causal = false;

  int64_t BatchHeads() const { return batch * heads; }
  // Elements of each of Q, K, V and O.
  int64_t TensorElements() const { return batch * heads * seq_len * head_dim; }
  // Elements of the full score matrix S that the naive variant stores.
  int64_t ScoreElements() const { return batch * heads * seq_len * seq_len; }
  // FLOPs by the FlashAttention convention: 4 * B * H * N^2 * d, halved when
  // causal (two matmuls of 2 * N^2 * d each; softmax not counted).
  double Flops() const {
    const double full =
        4.0 * double(batch) * double(heads) * double(seq_len) * double(seq_len) * double(head_dim);
    return causal ? full / 2 : full;
  }
};

}  // namespace kbench::kernels
