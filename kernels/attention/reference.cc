#include "kernels/attention/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "kernels/seeded_input.h"

namespace kbench::kernels {

namespace {

std::vector<double> HeadInput(uint64_t seed, DType dtype, InputStream stream,
                              const AttentionShape& shape, int64_t batch_head) {
  const int64_t count = shape.seq_len * shape.head_dim;
  std::vector<double> out(count);
  const uint64_t first = uint64_t(batch_head * count);
  for (int64_t i = 0; i < count; ++i) out[i] = RoundTo(dtype, SeededValue(seed, stream, first + i));
  return out;
}

}  // namespace

std::vector<double> AttentionReferenceRows(const AttentionShape& shape, uint64_t seed, DType dtype,
                                           const std::vector<AttentionRow>& rows) {
  const int64_t n = shape.seq_len, d = shape.head_dim;
  const double scale = 1.0 / std::sqrt(double(d));
  std::vector<double> out(rows.size() * d);
  std::vector<double> k, v, s(n);
  int64_t loaded = -1;
  for (size_t r = 0; r < rows.size(); ++r) {
    const AttentionRow& row = rows[r];
    if (row.batch_head != loaded) {
      k = HeadInput(seed, dtype, InputStream::kK, shape, row.batch_head);
      v = HeadInput(seed, dtype, InputStream::kV, shape, row.batch_head);
      loaded = row.batch_head;
    }
    std::vector<double> qi(d);
    const uint64_t q_first = uint64_t((row.batch_head * n + row.row) * d);
    for (int64_t x = 0; x < d; ++x)
      qi[x] = RoundTo(dtype, SeededValue(seed, InputStream::kQ, q_first + x));
    const int64_t keys = shape.causal ? row.row + 1 : n;
    double max = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < keys; ++j) {
      double dot = 0;
      for (int64_t x = 0; x < d; ++x) dot += qi[x] * k[j * d + x];
      s[j] = dot * scale;
      max = std::max(max, s[j]);
    }
    double sum = 0;
    for (int64_t j = 0; j < keys; ++j) {
      s[j] = std::exp(s[j] - max);
      sum += s[j];
    }
    double* o = out.data() + r * d;
    for (int64_t j = 0; j < keys; ++j) {
      const double p = s[j] / sum;
      for (int64_t x = 0; x < d; ++x) o[x] += p * v[j * d + x];
    }
  }
  return out;
}

std::vector<AttentionRow> SampleAttentionRows(const AttentionShape& shape, int64_t max_rows,
                                              uint64_t seed) {
  const int64_t heads = shape.BatchHeads(), n = shape.seq_len;
  std::vector<AttentionRow> rows;
  if (heads * n <= max_rows) {
    for (int64_t bh = 0; bh < heads; ++bh)
      for (int64_t i = 0; i < n; ++i) rows.push_back({bh, i});
    return rows;
  }
  max_rows = std::max<int64_t>(max_rows, 2);
  std::map<int64_t, std::set<int64_t>> picked;
  int64_t count = 0;
  const auto pick = [&](int64_t bh, int64_t i) {
    if (count < max_rows && picked[bh].insert(i).second) ++count;
  };
  pick(0, 0);
  pick(heads - 1, n - 1);
  const int64_t tail = std::min(n % kTailTileRows, max_rows / 4);
  for (int64_t i = n - tail; i < n; ++i) pick(heads - 1, i);
  uint64_t counter = 0;
  const auto draw = [&](uint64_t range) {
    return int64_t(SplitMix64((seed ^ 0x5EEDull) + counter++) % range);
  };
  // One row in each of `strata` equal runs of consecutive batch-heads.
  const int64_t strata = std::min(heads, max_rows - count);
  for (int64_t s = 0; s < strata; ++s) {
    const int64_t first = s * heads / strata, end = (s + 1) * heads / strata;
    pick(first + draw(uint64_t(end - first)), draw(uint64_t(n)));
  }
  while (count < max_rows) pick(draw(uint64_t(heads)), draw(uint64_t(n)));
  for (const auto& [bh, set] : picked)
    for (int64_t i : set) rows.push_back({bh, i});
  return rows;
}

}  // namespace kbench::kernels
