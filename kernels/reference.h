// Double-precision references, computed from the seed rather than from any
// backend's buffers, so they are independent of the code under test. Inputs
// are rounded to the problem's dtype first (what the kernel reads), then
// promoted to double.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::kernels {

// Reference of element i of c = a + b.
double VectorAddReference(uint64_t seed, DType dtype, uint64_t i);

// One row of O: query `row` of batch-head `batch_head`.
struct AttentionRow {
  int64_t batch_head = 0;
  int64_t row = 0;
};

// Reference values of the given rows of O, head_dim doubles each, in the
// order given. Rows of one batch-head share their K and V regeneration, so
// list them grouped (SampleAttentionRows does).
std::vector<double> AttentionReferenceRows(const AttentionShape& shape,
                                           uint64_t seed, DType dtype,
                                           const std::vector<AttentionRow>& rows);

// Every row of O when the problem has at most max_rows rows; otherwise
// max(max_rows, 2) rows: the first row of the first batch-head and the last
// row of the last (where masks and partial tiles bite), then rows drawn from
// the seed, spread over batch-heads (every batch-head gets one before any
// gets two, while max_rows allows). Grouped by batch-head, ascending.
std::vector<AttentionRow> SampleAttentionRows(const AttentionShape& shape,
                                              int64_t max_rows, uint64_t seed);

}  // namespace kbench::kernels
