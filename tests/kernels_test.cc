// Unit tests of kbench_kernels: seeded inputs, dtype rounding, the CPU
// vector-add and attention kernels against the double references, the row
// sampler of attention verification, and the error metrics.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/attention_shape.h"
#include "kernels/cpu_attention.h"
#include "kernels/cpu_vector_add.h"
#include "kernels/dtype.h"
#include "kernels/reference.h"
#include "kernels/seeded_input.h"
#include "kernels/verify.h"

namespace kbench::kernels {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---- Seeded inputs ---------------------------------------------------------

TEST(SeededValue, IsAPureFunctionOfSeedStreamAndIndex) {
  for (uint64_t i : {0ull, 1ull, 12345ull, (1ull << 40) + 7}) {
    EXPECT_EQ(SeededValue(42, InputStream::kA, i),
              SeededValue(42, InputStream::kA, i));
  }
}

TEST(SeededValue, LiesInMinusOneToOneWith24BitResolution) {
  float lo = 1, hi = -1;
  for (uint64_t i = 0; i < 100000; ++i) {
    const float v = SeededValue(7, InputStream::kQ, i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    // A multiple of 2^-23: exactly representable, no rounding in fp32.
    const double scaled = double(v) * 8388608.0;
    ASSERT_EQ(scaled, std::floor(scaled)) << "index " << i;
  }
  EXPECT_GE(lo, -1.0f);
  EXPECT_LT(hi, 1.0f);
  // Uniform over the range: both ends are approached.
  EXPECT_LT(lo, -0.99f);
  EXPECT_GT(hi, 0.99f);
}

TEST(SeededValue, IsRoughlyUniform) {
  constexpr int kCount = 100000;
  double sum = 0;
  int negative = 0;
  for (uint64_t i = 0; i < kCount; ++i) {
    const float v = SeededValue(3, InputStream::kB, i);
    sum += v;
    negative += v < 0;
  }
  // Mean of U(-1, 1) is 0 with standard error 1/sqrt(3 * kCount) ~ 0.0018.
  EXPECT_NEAR(sum / kCount, 0.0, 0.01);
  EXPECT_NEAR(double(negative) / kCount, 0.5, 0.01);
}

TEST(SeededValue, ValuesAlongAStreamAreNotAllEqual) {
  std::set<float> distinct;
  for (uint64_t i = 0; i < 1000; ++i)
    distinct.insert(SeededValue(1, InputStream::kA, i));
  EXPECT_GT(distinct.size(), 990u);
}

// Fraction of the first 1000 indices where two sequences agree.
template <typename F, typename G>
double Agreement(F f, G g) {
  int same = 0;
  for (uint64_t i = 0; i < 1000; ++i) same += f(i) == g(i);
  return same / 1000.0;
}

TEST(SeededValue, DiffersAcrossSeeds) {
  const double same = Agreement(
      [](uint64_t i) { return SeededValue(1, InputStream::kA, i); },
      [](uint64_t i) { return SeededValue(2, InputStream::kA, i); });
  EXPECT_LT(same, 0.01);
}

TEST(SeededValue, DiffersAcrossStreamsOfOneSeed) {
  const InputStream streams[] = {InputStream::kA, InputStream::kB,
                                 InputStream::kQ, InputStream::kK,
                                 InputStream::kV};
  for (InputStream s : streams) {
    for (InputStream t : streams) {
      if (s == t) continue;
      const double same = Agreement(
          [s](uint64_t i) { return SeededValue(9, s, i); },
          [t](uint64_t i) { return SeededValue(9, t, i); });
      EXPECT_LT(same, 0.01) << "streams " << uint32_t(s) << " and "
                            << uint32_t(t);
    }
  }
}

TEST(SeededValue, StreamIsNotTheSameSequenceShifted) {
  // Stream B must not be stream A at some offset (e.g. A at index + 1).
  for (uint64_t shift : {1ull, 2ull, 1000ull}) {
    const double same = Agreement(
        [](uint64_t i) { return SeededValue(5, InputStream::kB, i); },
        [shift](uint64_t i) { return SeededValue(5, InputStream::kA, i + shift); });
    EXPECT_LT(same, 0.01) << "shift " << shift;
  }
}

TEST(FillSeeded, MatchesSeededValueAtTheGivenOffset) {
  constexpr uint64_t kFirst = 1000003, kCount = 37;
  std::vector<float> out(kCount);
  FillSeeded(11, InputStream::kK, kFirst, kCount, out.data());
  for (uint64_t i = 0; i < kCount; ++i)
    EXPECT_EQ(out[i], SeededValue(11, InputStream::kK, kFirst + i)) << i;
}

TEST(FillSeeded, WritesExactlyCountElements) {
  std::vector<float> out(8, 123.0f);
  FillSeeded(11, InputStream::kV, 0, 5, out.data());
  for (int i = 5; i < 8; ++i) EXPECT_EQ(out[i], 123.0f) << i;
  FillSeeded(11, InputStream::kV, 0, 0, out.data() + 5);
  for (int i = 5; i < 8; ++i) EXPECT_EQ(out[i], 123.0f) << i;
}

// ---- Dtypes ----------------------------------------------------------------

TEST(DTypeName, NamesEachDType) {
  EXPECT_STREQ(DTypeName(DType::kFp32), "fp32");
  EXPECT_STREQ(DTypeName(DType::kFp16), "fp16");
  EXPECT_STREQ(DTypeName(DType::kBf16), "bf16");
}

TEST(Tolerance, IsLooserForAttentionAndForHalfTypes) {
  EXPECT_EQ(Tolerance(DType::kFp32, false), 1e-5);
  EXPECT_EQ(Tolerance(DType::kFp32, true), 2e-5);
  EXPECT_EQ(Tolerance(DType::kFp16, false), 1e-2);
  EXPECT_EQ(Tolerance(DType::kBf16, true), 1e-2);
}

TEST(RoundTo, Fp32IsTheIdentity) {
  for (float x : {0.0f, -1.5f, 1e-30f, 3.14159265f, 65504.0f, 1e30f})
    EXPECT_EQ(RoundTo(DType::kFp32, x), x);
}

TEST(HalfBits, ConvertsExactValues) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalfBits(-2.5f), 0xC100);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7BFF);  // largest finite half
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(HalfBitsToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfBitsToFloat(0xC100), -2.5f);
  EXPECT_EQ(HalfBitsToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfBitsToFloat(0x0400), std::ldexp(1.0f, -14));
}

TEST(HalfBits, ConvertsSubnormals) {
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);  // smallest
  EXPECT_EQ(FloatToHalfBits(std::ldexp(3.0f, -24)), 0x0003);
  EXPECT_EQ(FloatToHalfBits(-std::ldexp(1023.0f, -24)), 0x83FF);
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x83FF), -std::ldexp(1023.0f, -24));
}

TEST(HalfBits, FlushesValuesBelowHalfTheSmallestSubnormalToZero) {
  EXPECT_EQ(FloatToHalfBits(1e-8f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-1e-8f), 0x8000);
  EXPECT_EQ(RoundTo(DType::kFp16, 1e-8f), 0.0f);
}

TEST(HalfBits, RoundsToNearestEvenAtMidpoints) {
  // 1 + 2^-11 lies halfway between 1 (mantissa 0, even) and 1 + 2^-10.
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies halfway between mantissas 1 and 2 (even).
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(3.0f, -11)), 0x3C02);
  // Just above a midpoint rounds up.
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3C01);
  // Subnormal midpoints: 0.5 and 1.5 units of 2^-24.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(2047.0f, -25)), 0x0400);
  // A carry out of the mantissa bumps the exponent: 2 - 2^-12 -> 2.
  EXPECT_EQ(FloatToHalfBits(2.0f - std::ldexp(1.0f, -12)), 0x4000);
}

TEST(HalfBits, OverflowsToInfinity) {
  // 65520 is halfway between 65504 (odd mantissa) and 65536: rounds to inf.
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalfBits(1e6f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-1e6f), 0xFC00);
  EXPECT_EQ(FloatToHalfBits(kInf), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-kInf), 0xFC00);
  EXPECT_EQ(HalfBitsToFloat(0x7C00), kInf);
  EXPECT_EQ(HalfBitsToFloat(0xFC00), -kInf);
  EXPECT_EQ(RoundTo(DType::kFp16, 70000.0f), kInf);
}

TEST(HalfBits, NaNStaysNaN) {
  for (float nan : {kNaN, -kNaN, std::bit_cast<float>(0x7F800001u),
                    std::bit_cast<float>(0x7FC00000u | 1u)}) {
    const uint16_t h = FloatToHalfBits(nan);
    EXPECT_EQ(h & 0x7C00, 0x7C00);
    EXPECT_NE(h & 0x03FF, 0) << std::hex << h;
    EXPECT_TRUE(std::isnan(HalfBitsToFloat(h)));
    EXPECT_TRUE(std::isnan(RoundTo(DType::kFp16, nan)));
  }
}

TEST(HalfBits, EveryFiniteHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float f = HalfBitsToFloat(uint16_t(h));
    if (std::isnan(f)) {
      EXPECT_EQ(h & 0x7C00, 0x7C00u);
      continue;
    }
    ASSERT_EQ(FloatToHalfBits(f), h) << std::hex << "bits 0x" << h;
  }
}

TEST(Bf16Bits, ConvertsExactValues) {
  EXPECT_EQ(FloatToBf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16Bits(-2.5f), 0xC020);
  EXPECT_EQ(FloatToBf16Bits(0.0f), 0x0000);
  EXPECT_EQ(FloatToBf16Bits(-0.0f), 0x8000);
  EXPECT_EQ(Bf16BitsToFloat(0x3F80), 1.0f);
  EXPECT_EQ(Bf16BitsToFloat(0xC020), -2.5f);
}

TEST(Bf16Bits, Has8BitsOfPrecisionAndFloatRange) {
  // 65504 = 0x477FE000: eight mantissa bits cannot hold it; nearest is 65536.
  EXPECT_EQ(RoundTo(DType::kBf16, 65504.0f), 65536.0f);
  // 1e-8 is far inside bf16's range (unlike half's).
  const float tiny = RoundTo(DType::kBf16, 1e-8f);
  EXPECT_NEAR(tiny, 1e-8f, 1e-8f * std::ldexp(1.0f, -8));
  EXPECT_NE(tiny, 0.0f);
  // Float subnormals keep their top seven mantissa bits (units of 2^-133).
  EXPECT_EQ(RoundTo(DType::kBf16, std::ldexp(1.0f, -130)), std::ldexp(1.0f, -130));
  EXPECT_EQ(RoundTo(DType::kBf16, std::ldexp(1.0f, -135)), 0.0f);
}

TEST(Bf16Bits, RoundsToNearestEvenAtMidpoints) {
  EXPECT_EQ(FloatToBf16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(FloatToBf16Bits(1.0f + std::ldexp(3.0f, -8)), 0x3F82);
  EXPECT_EQ(FloatToBf16Bits(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            0x3F81);
  EXPECT_EQ(FloatToBf16Bits(-(1.0f + std::ldexp(3.0f, -8))), 0xBF82);
}

TEST(Bf16Bits, OverflowsToInfinity) {
  EXPECT_EQ(FloatToBf16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(FloatToBf16Bits(-std::numeric_limits<float>::max()), 0xFF80);
  EXPECT_EQ(FloatToBf16Bits(kInf), 0x7F80);
  EXPECT_EQ(Bf16BitsToFloat(0x7F80), kInf);
}

TEST(Bf16Bits, NaNStaysNaN) {
  // 0x7F800001 has its payload only in the low 16 bits: truncating it would
  // give infinity.
  for (float nan : {kNaN, -kNaN, std::bit_cast<float>(0x7F800001u),
                    std::bit_cast<float>(0x7FFFFFFFu)}) {
    EXPECT_TRUE(std::isnan(Bf16BitsToFloat(FloatToBf16Bits(nan))))
        << std::hex << std::bit_cast<uint32_t>(nan);
    EXPECT_TRUE(std::isnan(RoundTo(DType::kBf16, nan)));
  }
}

TEST(Bf16Bits, EveryFiniteBf16RoundTripsThroughFloat) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const float f = Bf16BitsToFloat(uint16_t(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToBf16Bits(f), b) << std::hex << "bits 0x" << b;
  }
}

// ---- Vector add ------------------------------------------------------------

using VectorAddFn = void (*)(const float*, const float*, float*, int64_t);

struct VectorAddCase {
  const char* variant;
  VectorAddFn fn;
  int64_t n;
};

void PrintTo(const VectorAddCase& c, std::ostream* os) {
  *os << c.variant << " n=" << c.n;
}

class VectorAddCpu : public ::testing::TestWithParam<VectorAddCase> {};

constexpr uint64_t kSeed = 0x1234;
constexpr int64_t kGuard = 16;
constexpr float kSentinel = -777.25f;

// a and b hold n + kGuard seeded elements; c holds n + kGuard sentinels.
void RunVectorAdd(VectorAddFn fn, int64_t n, int64_t offset,
                  std::vector<float>& c) {
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
  ErrorStats stats;
  for (int64_t i = 0; i < param.n; ++i) {
    const double ref = VectorAddReference(kSeed, DType::kFp32, uint64_t(i));
    stats.Add(c[i], ref);
    // Sums of two 24-bit values in [-1, 1) are exact in fp32.
    ASSERT_EQ(double(c[i]), ref) << "element " << i;
  }
  EXPECT_EQ(stats.checked(), uint64_t(param.n));
  if (param.n > 0) {
    EXPECT_TRUE(stats.Passes(Tolerance(DType::kFp32, false)));
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
  for (int64_t i = 1 + param.n; i < int64_t(c.size()); ++i)
    EXPECT_EQ(c[i], kSentinel);
}

std::vector<VectorAddCase> VectorAddCases() {
  std::vector<VectorAddCase> cases;
  for (int64_t n : {0, 1, 3, 4, 5, 7, 1023, 1025}) {
    cases.push_back({"Naive", &VectorAddNaiveCpu, n});
    cases.push_back({"Vectorized", &VectorAddVectorizedCpu, n});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(
    TailSizes, VectorAddCpu, ::testing::ValuesIn(VectorAddCases()),
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
  AttentionNaiveCpu(shape, q.data(), k.data(), out.v.data(), scores.data(),
                    out.naive.data());
  AttentionFusedCpu(shape, q.data(), k.data(), out.v.data(), out.fused.data());
  return out;
}

std::vector<AttentionRow> AllRows(const AttentionShape& shape) {
  std::vector<AttentionRow> rows;
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh)
    for (int64_t i = 0; i < shape.seq_len; ++i) rows.push_back({bh, i});
  return rows;
}

ErrorStats Compare(const std::vector<float>& out, const std::vector<double>& ref) {
  ErrorStats stats;
  for (size_t i = 0; i < out.size(); ++i) stats.Add(out[i], ref[i]);
  return stats;
}

std::string ShapeName(const AttentionShape& s) {
  std::ostringstream name;
  name << "b" << s.batch << "h" << s.heads << "n" << s.seq_len << "d"
       << s.head_dim << (s.causal ? "_causal" : "");
  return name.str();
}

class AttentionCpu : public ::testing::TestWithParam<AttentionShape> {};

}  // namespace

// Found by argument-dependent lookup, so it lives in AttentionShape's namespace.
static void PrintTo(const AttentionShape& shape, std::ostream* os) {
  *os << ShapeName(shape);
}

namespace {

TEST_P(AttentionCpu, NaiveMatchesTheReferenceOnEveryRow) {
  const AttentionShape& shape = GetParam();
  const AttentionOutputs out = RunAttention(shape);
  const ErrorStats stats = Compare(
      out.naive, AttentionReferenceRows(shape, kSeed, DType::kFp32, AllRows(shape)));
  EXPECT_EQ(stats.checked(), uint64_t(shape.TensorElements()));
  EXPECT_EQ(stats.non_finite(), 0u);
  EXPECT_TRUE(stats.Passes(Tolerance(DType::kFp32, true)))
      << "rel_l2_error " << stats.rel_l2_error();
}

TEST_P(AttentionCpu, FusedMatchesTheReferenceOnEveryRow) {
  const AttentionShape& shape = GetParam();
  const AttentionOutputs out = RunAttention(shape);
  const ErrorStats stats = Compare(
      out.fused, AttentionReferenceRows(shape, kSeed, DType::kFp32, AllRows(shape)));
  EXPECT_EQ(stats.checked(), uint64_t(shape.TensorElements()));
  EXPECT_EQ(stats.non_finite(), 0u);
  EXPECT_TRUE(stats.Passes(Tolerance(DType::kFp32, true)))
      << "rel_l2_error " << stats.rel_l2_error();
}

TEST_P(AttentionCpu, FusedAgreesWithNaive) {
  const AttentionOutputs out = RunAttention(GetParam());
  const std::vector<double> naive(out.naive.begin(), out.naive.end());
  const ErrorStats stats = Compare(out.fused, naive);
  EXPECT_TRUE(stats.Passes(Tolerance(DType::kFp32, true)))
      << "rel_l2_error " << stats.rel_l2_error();
  EXPECT_LT(stats.max_abs_error(), 1e-5);
}

std::vector<AttentionShape> AttentionShapes() {
  // {batch, heads, seq_len, head_dim}: seq_len around and off the block sizes
  // kCpuBlockQ = 32 and kCpuBlockK = 64; head_dim 1, 16 and 64.
  const std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>> dims = {
      {1, 1, 1, 1},   {1, 1, 1, 16},  {1, 1, 33, 16}, {1, 2, 64, 16},
      {1, 2, 65, 64}, {2, 3, 100, 16}, {1, 2, 130, 64}, {2, 1, 97, 1},
      {3, 1, 31, 64}};
  std::vector<AttentionShape> shapes;
  for (const auto& [b, h, n, d] : dims) {
    for (bool causal : {false, true})
      shapes.push_back({.batch = b, .heads = h, .seq_len = n, .head_dim = d,
                        .causal = causal});
  }
  return shapes;
}

INSTANTIATE_TEST_SUITE_P(
    OddShapes, AttentionCpu, ::testing::ValuesIn(AttentionShapes()),
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
  const auto some = AttentionReferenceRows(shape, kSeed, DType::kFp32,
                                           {{1, 8}, {0, 3}, {0, 0}});
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

void ExpectValidSample(const AttentionShape& shape, int64_t max_rows,
                       uint64_t seed) {
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

TEST(SampleAttentionRows, CoversEveryBatchHeadBeforeRepeatingOne) {
  // max_rows == batch_heads: every batch-head gets exactly one row.
  const AttentionShape shape{.batch = 2, .heads = 4, .seq_len = 1000, .head_dim = 64};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto rows = SampleAttentionRows(shape, shape.BatchHeads(), seed);
    std::vector<int> per_head(shape.BatchHeads());
    for (const auto& row : rows) ++per_head[row.batch_head];
    for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh)
      EXPECT_EQ(per_head[bh], 1) << "seed " << seed << " batch_head " << bh;
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

// ---- Error metrics ---------------------------------------------------------

TEST(ErrorStats, ExactMatchPassesWithZeroError) {
  ErrorStats stats;
  for (double v : {0.5, -1.25, 3.0, 0.0}) stats.Add(float(v), v);
  EXPECT_EQ(stats.checked(), 4u);
  EXPECT_EQ(stats.rel_l2_error(), 0.0);
  EXPECT_EQ(stats.max_abs_error(), 0.0);
  EXPECT_TRUE(stats.Passes(1e-5));
  EXPECT_TRUE(stats.Passes(0.0));
}

TEST(ErrorStats, ComputesRelativeL2AndMaxAbsError) {
  ErrorStats stats;
  stats.Add(1.0f, 1.5);    // error -0.5
  stats.Add(2.0f, 1.75);   // error 0.25
  EXPECT_DOUBLE_EQ(stats.max_abs_error(), 0.5);
  EXPECT_DOUBLE_EQ(stats.rel_l2_error(),
                   std::sqrt((0.25 + 0.0625) / (2.25 + 3.0625)));
}

TEST(ErrorStats, NaNOutputFailsAndIsCountedAsNonFinite) {
  ErrorStats stats;
  stats.Add(1.0f, 1.0);
  stats.Add(kNaN, 2.0);
  stats.Add(-kInf, 3.0);
  EXPECT_EQ(stats.checked(), 3u);
  EXPECT_EQ(stats.non_finite(), 2u);
  EXPECT_TRUE(std::isinf(stats.rel_l2_error()));
  EXPECT_TRUE(std::isinf(stats.max_abs_error()));
  EXPECT_FALSE(stats.Passes(1e9));
}

TEST(ErrorStats, RelativePerturbationOf1e3FailsTheFp32Tolerance) {
  ErrorStats stats;
  for (int i = 1; i <= 100; ++i) {
    const double ref = std::sin(double(i));
    stats.Add(float(ref * (1 + 1e-3)), ref);
  }
  EXPECT_NEAR(stats.rel_l2_error(), 1e-3, 1e-6);
  EXPECT_FALSE(stats.Passes(1e-5));
  EXPECT_TRUE(stats.Passes(2e-3));
}

TEST(ErrorStats, NoElementsDoesNotPass) {
  ErrorStats stats;
  EXPECT_EQ(stats.checked(), 0u);
  EXPECT_FALSE(stats.Passes(1.0));
}

TEST(ErrorStats, ZeroReferenceIsExactOnlyWhenOutputIsZero) {
  ErrorStats zero;
  zero.Add(0.0f, 0.0);
  EXPECT_EQ(zero.rel_l2_error(), 0.0);
  EXPECT_TRUE(zero.Passes(1e-5));
  ErrorStats off;
  off.Add(1e-3f, 0.0);
  EXPECT_TRUE(std::isinf(off.rel_l2_error()));
  EXPECT_FALSE(off.Passes(1e-5));
}

}  // namespace
}  // namespace kbench::kernels
