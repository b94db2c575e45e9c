// Unit tests of the CPU kernels of kbench_kernels: vector add and attention
// against the double references, and the row sampler of attention
// verification.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/attention/attention_shape.h"
#include "kernels/attention/cpu_attention.h"
#include "kernels/attention/reference.h"
#include "kernels/attention/simple_reference.h"
#include "kernels/attention/tolerances.h"
#include "kernels/dtype.h"
#include "kernels/seeded_input.h"
#include "kernels/vector_add/cpu_vector_add.h"
#include "kernels/vector_add/reference.h"
#include "kernels/vector_add/simple_reference.h"
#include "kernels/vector_add/tolerances.h"
#include "kernels/verify.h"

namespace kbench::kernels {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---- Vector add ------------------------------------------------------------

using VectorAddFn = void (*)(const float*, const float*, float*, int64_t);

struct VectorAddCase {
  const char* variant;
  VectorAddFn fn;
  int64_t n;
};

void PrintTo(const VectorAddCase& c, std::ostream* os) { *os << c.variant << " n=" << c.n; }

class VectorAddCpu : public ::testing::TestWithParam<VectorAddCase> {};

constexpr uint64_t kSeed = 0x1234;
constexpr int64_t kGuard = 16;
constexpr float kSentinel = -777.25f;

// a and b hold n + kGuard seeded elements; c holds n + kGuard sentinels.
void RunVectorAdd(VectorAddFn fn, int64_t n, int64_t offset, std::vector<float>& c) {
  const int64_t size = offset + n + kGuard;
  std::vector<float> a(size), b(size);
  FillSeeded(kSeed, InputStream::kA, 0, size, a.data());
  FillSeeded(kSeed, InputStream::kB, 0, size, b.data());
  c.assign(size, kSentinel);
  fn(a.data() + offset, b.data() + offset, c.data() + offset, n);
}

TEST_P(VectorAddCpu, EqualsTheReferenceExactly) {
  const auto& param = GetParam();
  std::vector<float> c;
  RunVectorAdd(param.fn, param.n, 0, c);
  const Tolerance tolerance = VectorAddTolerances(DType::kFp32).variant;
  Comparison stats;
  for (int64_t i = 0; i < param.n; ++i) {
    const double ref = VectorAddReference(kSeed, DType::kFp32, uint64_t(i));
    stats.Add(i, c[i], ref, tolerance.element);
    // Sums of two 24-bit values in [-1, 1) are exact in fp32.
    ASSERT_EQ(double(c[i]), ref) << "element " << i;
  }
  EXPECT_EQ(stats.checked, uint64_t(param.n));
  if (param.n > 0) {
    EXPECT_TRUE(stats.Passes(tolerance));
  }
}

TEST_P(VectorAddCpu, WritesNothingPastN) {
  const auto& param = GetParam();
  std::vector<float> c;
  RunVectorAdd(param.fn, param.n, 0, c);
  for (int64_t i = param.n; i < param.n + kGuard; ++i)
    EXPECT_EQ(c[i], kSentinel) << "guard element " << i - param.n;
}

TEST_P(VectorAddCpu, HandlesPointersNotAlignedTo16Bytes) {
  const auto& param = GetParam();
  std::vector<float> c;
  RunVectorAdd(param.fn, param.n, 1, c);
  EXPECT_EQ(c[0], kSentinel);
  for (int64_t i = 0; i < param.n; ++i) {
    const double ref = VectorAddReference(kSeed, DType::kFp32, uint64_t(i + 1));
    ASSERT_EQ(double(c[1 + i]), ref) << "element " << i;
  }
  for (int64_t i = 1 + param.n; i < int64_t(c.size()); ++i) EXPECT_EQ(c[i], kSentinel);
}

std::vector<VectorAddCase> VectorAddCases() {
  std::vector<VectorAddCase> cases;
  for (int64_t n : {0, 1, 3, 4, 5, 7, 1023, 1025}) {
    cases.push_back({"Naive", &VectorAddNaiveCpu, n});
    cases.push_back({"Vectorized", &VectorAddVectorizedCpu, n});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(TailSizes, VectorAddCpu, ::testing::ValuesIn(VectorAddCases()),
                         [](const ::testing::TestParamInfo<VectorAddCase>& info) {
                           std::ostringstream name;
                           name << info.param.variant << "_n" << info.param.n;
                           return name.str();
                         });

// ---- Attention -------------------------------------------------------------

struct AttentionOutputs {
  std::vector<float> v;      // the V input, for checks that need it
  std::vector<float> naive;  // O from the naive variant
  std::vector<float> fused;  // O from the fused variant
};

// Runs both variants on inputs made from kSeed, outputs poisoned with NaN
// first so an element neither writes fails verification.
AttentionOutputs RunAttention(const AttentionShape& shape) {
  const int64_t count = shape.TensorElements();
  std::vector<float> q(count), k(count);
  AttentionOutputs out;
  out.v.resize(count);
  FillSeeded(kSeed, InputStream::kQ, 0, count, q.data());
  FillSeeded(kSeed, InputStream::kK, 0, count, k.data());
  FillSeeded(kSeed, InputStream::kV, 0, count, out.v.data());
  std::vector<float> scores(shape.ScoreElements(), kNaN);
  out.naive.assign(count, kNaN);
  out.fused.assign(count, kNaN);
  AttentionNaiveCpu(shape, q.data(), k.data(), out.v.data(), scores.data(), out.naive.data());
  AttentionFusedCpu(shape, q.data(), k.data(), out.v.data(), out.fused.data());
  return out;
}

std::vector<AttentionRow> AllRows(const AttentionShape& shape) {
  std::vector<AttentionRow> rows;
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh)
    for (int64_t i = 0; i < shape.seq_len; ++i) rows.push_back({bh, i});
  return rows;
}

Comparison CompareAll(const std::vector<float>& out, const std::vector<double>& ref,
                      const Tolerance& tolerance) {
  Comparison stats;
  for (size_t i = 0; i < out.size(); ++i) stats.Add(int64_t(i), out[i], ref[i], tolerance.element);
  return stats;
}

std::string ShapeName(const AttentionShape& s) {
  std::ostringstream name;
  name << "b" << s.batch << "h" << s.heads << "n" << s.seq_len << "d" << s.head_dim
       << (s.causal ? "_causal" : "");
  return name.str();
}

class AttentionCpu : public ::testing::TestWithParam<AttentionShape> {};

}  // namespace

// Found by argument-dependent lookup, so it lives in AttentionShape's namespace.
static void PrintTo(const AttentionShape& shape, std::ostream* os) { *os << ShapeName(shape); }

namespace {

TEST_P(AttentionCpu, NaiveMatchesTheReferenceOnEveryRow) {
  const AttentionShape& shape = GetParam();
  const AttentionOutputs out = RunAttention(shape);
  const Tolerance tolerance = AttentionTolerances(DType::kFp32, shape).variant;
  const Comparison stats = CompareAll(
      out.naive, AttentionReferenceRows(shape, kSeed, DType::kFp32, AllRows(shape)), tolerance);
  EXPECT_EQ(stats.checked, uint64_t(shape.TensorElements()));
  EXPECT_EQ(stats.non_finite, 0u);
  EXPECT_TRUE(stats.Passes(tolerance))
      << "rel_l2_error " << stats.rel_l2_error() << ", over " << stats.over_tolerance;
}

TEST_P(AttentionCpu, FusedMatchesTheReferenceOnEveryRow) {
  const AttentionShape& shape = GetParam();
  const AttentionOutputs out = RunAttention(shape);
  const Tolerance tolerance = AttentionTolerances(DType::kFp32, shape).variant;
  const Comparison stats = CompareAll(
      out.fused, AttentionReferenceRows(shape, kSeed, DType::kFp32, AllRows(shape)), tolerance);
  EXPECT_EQ(stats.checked, uint64_t(shape.TensorElements()));
  EXPECT_EQ(stats.non_finite, 0u);
  EXPECT_TRUE(stats.Passes(tolerance))
      << "rel_l2_error " << stats.rel_l2_error() << ", over " << stats.over_tolerance;
}

TEST_P(AttentionCpu, FusedAgreesWithNaive) {
  const AttentionOutputs out = RunAttention(GetParam());
  const std::vector<double> naive(out.naive.begin(), out.naive.end());
  const Comparison stats =
      CompareAll(out.fused, naive, AttentionTolerances(DType::kFp32, GetParam()).against_reference);
  EXPECT_TRUE(stats.Passes(AttentionTolerances(DType::kFp32, GetParam()).against_reference))
      << "rel_l2_error " << stats.rel_l2_error();
  EXPECT_LT(stats.max_abs_error, 1e-5);
}

std::vector<AttentionShape> AttentionShapes() {
  // {batch, heads, seq_len, head_dim}: seq_len around and off the block sizes
  // kCpuBlockQ = 32 and kCpuBlockK = 64; head_dim 1, 16 and 64.
  const std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>> dims = {
      {1, 1, 1, 1},    {1, 1, 1, 16},   {1, 1, 33, 16}, {1, 2, 64, 16}, {1, 2, 65, 64},
      {2, 3, 100, 16}, {1, 2, 130, 64}, {2, 1, 97, 1},  {3, 1, 31, 64}};
  std::vector<AttentionShape> shapes;
  for (const auto& [b, h, n, d] : dims) {
    for (bool causal : {false, true})
      shapes.push_back({.batch = b, .heads = h, .seq_len = n, .head_dim = d, .causal = causal});
  }
  return shapes;
}

INSTANTIATE_TEST_SUITE_P(OddShapes, AttentionCpu, ::testing::ValuesIn(AttentionShapes()),
                         [](const ::testing::TestParamInfo<AttentionShape>& info) {
                           return ShapeName(info.param);
                         });

TEST(CausalAttentionCpu, FirstQueryRowEqualsFirstValueRow) {
  // Query 0 sees key 0 alone: softmax over one score is 1, so O = V row 0.
  for (const AttentionShape& shape : AttentionShapes()) {
    if (!shape.causal) continue;
    SCOPED_TRACE(ShapeName(shape));
    const AttentionOutputs out = RunAttention(shape);
    const int64_t n = shape.seq_len, d = shape.head_dim;
    for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh) {
      for (int64_t x = 0; x < d; ++x) {
        const size_t at = size_t(bh * n * d + x);
        EXPECT_FLOAT_EQ(out.naive[at], out.v[at]) << "bh " << bh << " x " << x;
        EXPECT_FLOAT_EQ(out.fused[at], out.v[at]) << "bh " << bh << " x " << x;
      }
    }
  }
}

TEST(AttentionReferenceRows, ReturnsRowsInTheOrderGiven) {
  const AttentionShape shape{.batch = 1, .heads = 2, .seq_len = 9, .head_dim = 4};
  const auto all = AttentionReferenceRows(shape, kSeed, DType::kFp32, AllRows(shape));
  const auto some = AttentionReferenceRows(shape, kSeed, DType::kFp32, {{1, 8}, {0, 3}, {0, 0}});
  ASSERT_EQ(some.size(), 3u * 4u);
  for (int x = 0; x < 4; ++x) {
    EXPECT_EQ(some[0 * 4 + x], all[(1 * 9 + 8) * 4 + x]);
    EXPECT_EQ(some[1 * 4 + x], all[(0 * 9 + 3) * 4 + x]);
    EXPECT_EQ(some[2 * 4 + x], all[(0 * 9 + 0) * 4 + x]);
  }
}

// ---- Row sampling ----------------------------------------------------------

TEST(SampleAttentionRows, ListsEveryRowWhenTheProblemIsSmall) {
  const AttentionShape shape{.batch = 2, .heads = 3, .seq_len = 10, .head_dim = 8};
  const auto rows = SampleAttentionRows(shape, 60, 1);
  ASSERT_EQ(rows.size(), 60u);
  for (size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r].batch_head, int64_t(r) / 10);
    EXPECT_EQ(rows[r].row, int64_t(r) % 10);
  }
}

void ExpectValidSample(const AttentionShape& shape, int64_t max_rows, uint64_t seed) {
  const auto rows = SampleAttentionRows(shape, max_rows, seed);
  ASSERT_EQ(int64_t(rows.size()), max_rows);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (size_t r = 0; r < rows.size(); ++r) {
    ASSERT_GE(rows[r].batch_head, 0);
    ASSERT_LT(rows[r].batch_head, shape.BatchHeads());
    ASSERT_GE(rows[r].row, 0);
    ASSERT_LT(rows[r].row, shape.seq_len);
    if (r > 0) {
      EXPECT_LE(rows[r - 1].batch_head, rows[r].batch_head) << r;
    }
    EXPECT_TRUE(seen.insert({rows[r].batch_head, rows[r].row}).second)
        << "duplicate row (" << rows[r].batch_head << ", " << rows[r].row << ")";
  }
  EXPECT_TRUE(seen.count({0, 0}));
  EXPECT_TRUE(seen.count({shape.BatchHeads() - 1, shape.seq_len - 1}));
}

TEST(SampleAttentionRows, DrawsExactlyMaxRowsGroupedWithoutDuplicates) {
  for (uint64_t seed : {1ull, 2ull, 99ull}) {
    SCOPED_TRACE(seed);
    ExpectValidSample({.batch = 2, .heads = 4, .seq_len = 1000, .head_dim = 64}, 256, seed);
    ExpectValidSample({.batch = 1, .heads = 1, .seq_len = 300, .head_dim = 64}, 256, seed);
    ExpectValidSample({.batch = 1, .heads = 1, .seq_len = 3, .head_dim = 64}, 2, seed);
    ExpectValidSample({.batch = 64, .heads = 16, .seq_len = 4, .head_dim = 8}, 256, seed);
  }
}

TEST(SampleAttentionRows, CoversEveryBatchHeadWhenTheBudgetAllows) {
  const AttentionShape shape{.batch = 2, .heads = 40, .seq_len = 1000, .head_dim = 64};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto rows = SampleAttentionRows(shape, 256, seed);
    std::vector<int> per_head(shape.BatchHeads());
    for (const auto& row : rows) ++per_head[row.batch_head];
    for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh)
      EXPECT_GE(per_head[bh], 1) << "seed " << seed << " batch_head " << bh;
  }
}

TEST(SampleAttentionRows, SpreadsOverAllBatchHeadsWhenThereAreMoreThanRows) {
  // B=32, H=32: 1024 batch-heads for 256 rows. Sampling them in order would
  // leave the last three quarters unchecked.
  const AttentionShape shape{.batch = 32, .heads = 32, .seq_len = 100, .head_dim = 64};
  const auto rows = SampleAttentionRows(shape, 256, 7);
  std::set<int64_t> heads;
  for (const auto& row : rows) heads.insert(row.batch_head);
  int64_t largest_gap = 0, previous = -1;
  for (int64_t bh : heads) {
    largest_gap = std::max(largest_gap, bh - previous);
    previous = bh;
  }
  EXPECT_GE(heads.size(), 150u);
  EXPECT_LE(largest_gap, 2 * 1024 / 150) << "batch-heads left unsampled in a run";
  EXPECT_GE(std::count_if(heads.begin(), heads.end(), [](int64_t bh) { return bh >= 768; }), 30);
}

TEST(SampleAttentionRows, IncludesThePartialTailTileOfTheLastBatchHead) {
  const AttentionShape shape{.batch = 4, .heads = 8, .seq_len = 100, .head_dim = 64};
  const auto rows = SampleAttentionRows(shape, 256, 3);
  std::set<int64_t> last;
  for (const auto& row : rows)
    if (row.batch_head == shape.BatchHeads() - 1) last.insert(row.row);
  for (int64_t i = 100 - 100 % kTailTileRows; i < 100; ++i)
    EXPECT_TRUE(last.count(i)) << "tail row " << i;
}

// FlashAttention-3's FP8 forward pass, emulated on the host as its tensor
// cores compute it: E4M3 inputs (in their own units) with per-tensor
// scales, Q K^T summed in fp32 then descaled, softmax in fp32, P rounded to
// E4M3 for P V, the row sum and O in fp32, O written in bf16. `v_scale`
// is the scale the kernel applies to V (a wrong one is a bug to catch).
std::vector<float> Fp8AttentionEmulated(const AttentionShape& shape, float v_scale) {
  const int64_t count = shape.TensorElements(), n = shape.seq_len, d = shape.head_dim;
  auto e4m3 = [&](InputStream stream) {
    std::vector<float> values(count);
    FillSeeded(kSeed, stream, 0, count, values.data());
    for (float& x : values) x = E4M3BitsToFloat(FloatToE4M3Bits(x / kFp8InputScale));
    return values;
  };
  const std::vector<float> q = e4m3(InputStream::kQ), k = e4m3(InputStream::kK),
                           v = e4m3(InputStream::kV);
  const float descale = kFp8InputScale * kFp8InputScale / std::sqrt(float(d));
  std::vector<float> o(count), s(n);
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh) {
    const int64_t base = bh * n * d;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t keys = shape.causal ? i + 1 : n;
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < keys; ++j) {
        float dot = 0;
        for (int64_t c = 0; c < d; ++c) dot += q[base + i * d + c] * k[base + j * d + c];
        s[j] = dot * descale;
        max = std::max(max, s[j]);
      }
      float sum = 0;
      std::vector<float> acc(d, 0.0f);
      for (int64_t j = 0; j < keys; ++j) {
        const float p = std::exp(s[j] - max);
        sum += p;
        const float p8 = E4M3BitsToFloat(FloatToE4M3Bits(p));
        for (int64_t c = 0; c < d; ++c) acc[c] += p8 * v[base + j * d + c];
      }
      for (int64_t c = 0; c < d; ++c)
        o[base + i * d + c] = RoundTo(DType::kBf16, acc[c] * v_scale / sum);
    }
  }
  return o;
}

TEST(Fp8AttentionTolerance, HoldsTheEmulatedFp8KernelAndCatchesAWrongScale) {
  for (const AttentionShape shape :
       {AttentionShape{.batch = 1, .heads = 2, .seq_len = 200, .head_dim = 64},
        AttentionShape{.batch = 1, .heads = 1, .seq_len = 1024, .head_dim = 128, .causal = true},
        AttentionShape{.batch = 1, .heads = 1, .seq_len = 4096, .head_dim = 64}}) {
    const Tolerance tolerance = AttentionTolerances(DType::kFp8, shape).variant;
    const std::vector<double> ref =
        AttentionReferenceRows(shape, kSeed, DType::kFp8, AllRows(shape));
    const Comparison right =
        CompareAll(Fp8AttentionEmulated(shape, kFp8InputScale), ref, tolerance);
    EXPECT_TRUE(right.Passes(tolerance))
        << ShapeName(shape) << ": rel_l2 " << right.rel_l2_error() << " (bound " << tolerance.rel_l2
        << "), " << right.over_tolerance << " elements over";
    // Within the bound, but not so far within it that the bound is slack:
    // P's rounding alone is u_p / sqrt(3) RMS (tolerances.cc).
    EXPECT_GT(right.rel_l2_error(), tolerance.rel_l2 / 8) << ShapeName(shape);
    std::printf("fp8 attention emulated, %s: rel_l2 %.4f (bound %.4f)\n", ShapeName(shape).c_str(),
                right.rel_l2_error(), tolerance.rel_l2);
    // V's scale off by two E4M3 steps (1.125x): every output 12.5% off.
    // (fp8's own rounding is 2-3% RMS, so a few percent passes unseen.)
    const Comparison wrong =
        CompareAll(Fp8AttentionEmulated(shape, kFp8InputScale * 1.125f), ref, tolerance);
    EXPECT_FALSE(wrong.Passes(tolerance))
        << ShapeName(shape) << ": rel_l2 " << wrong.rel_l2_error();
  }
}

TEST(AttentionSimpleReference, MatchesTheDoubleReferenceWithinItsTolerance) {
  for (const bool causal : {false, true}) {
    const AttentionShape shape{
        .batch = 2, .heads = 2, .seq_len = 77, .head_dim = 24, .causal = causal};
    const int64_t count = shape.TensorElements();
    std::vector<float> q(count), k(count), v(count), o(count);
    FillSeeded(kSeed, InputStream::kQ, 0, count, q.data());
    FillSeeded(kSeed, InputStream::kK, 0, count, k.data());
    FillSeeded(kSeed, InputStream::kV, 0, count, v.data());
    AttentionSimpleReference(shape, q.data(), k.data(), v.data(), o.data());
    const Tolerance tolerance = AttentionTolerances(DType::kFp32, shape).reference;
    const Comparison stats = CompareAll(
        o, AttentionReferenceRows(shape, kSeed, DType::kFp32, AllRows(shape)), tolerance);
    EXPECT_TRUE(stats.Passes(tolerance))
        << "causal " << causal << " rel_l2 " << stats.rel_l2_error();
  }
}

TEST(SampleAttentionRows, IsDeterministicPerSeed) {
  const AttentionShape shape{.batch = 2, .heads = 4, .seq_len = 1000, .head_dim = 64};
  const auto key = [](const std::vector<AttentionRow>& rows) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const auto& r : rows) out.push_back({r.batch_head, r.row});
    return out;
  };
  EXPECT_EQ(key(SampleAttentionRows(shape, 64, 5)), key(SampleAttentionRows(shape, 64, 5)));
  EXPECT_NE(key(SampleAttentionRows(shape, 64, 5)), key(SampleAttentionRows(shape, 64, 6)));
}

}  // namespace
}  // namespace kbench::kernels
