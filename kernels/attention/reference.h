// The double-precision reference of attention, computed from the seed
// rather than from any backend's buffers, so it is independent of the code
// under test, and the rows it is checked on. Inputs are rounded to the
// problem's dtype first (what the kernel reads), then promoted to double.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::kernels {

// One row of O: query `row` of batch-head `batch_head`.
struct AttentionRow {
  int64_t batch_head = 0;
  int64_t row = 0;
};

// Reference values of the given rows of O, head_dim doubles each, in the
// order given. Rows of one batch-head share their K and V regeneration, so
// list them grouped (SampleAttentionRows does).
std::vector<double> AttentionReferenceRows(const AttentionShape& shape, uint64_t seed, DType dtype,
                                           const std::vector<AttentionRow>& rows);

// The rows of a query tile of the largest kernel (CUDA's fused kernels
// take 64 query rows a block; the CPU fused kernel 32): a partial last tile
// is where a missing tail mask bites.
inline constexpr int64_t kTailTileRows = 64;

// Every row of O when the problem has at most max_rows rows; otherwise
// max(max_rows, 2) rows drawn from the seed, always including:
//   - the first row of the first batch-head and the last row of the last;
//   - the rows of the last batch-head's partial last tile of kTailTileRows
//     (seq_len % kTailTileRows rows; up to a quarter of max_rows);
//   - rows spread over every batch-head: one in each batch-head while the
//     budget allows, else one in each of as many equal strata of
//     consecutive batch-heads as the budget allows (so batch-heads up to the
//     last are sampled however many there are);
// then rows anywhere. Grouped by batch-head, ascending.
std::vector<AttentionRow> SampleAttentionRows(const AttentionShape& shape, int64_t max_rows,
                                              uint64_t seed);

}  // namespace kbench::kernels
