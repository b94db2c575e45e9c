// Unit tests of server/run/validation.h (and the timing_resolution.h it
// applies) against the CPU backend's limits and ops:
// what is admitted (with defaults applied) and what is refused, with a
// message that names the field and the limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/attention/attention_head_dims.h"
#include "server/run/legacy_requests.h"
#include "server/run/limits.h"
#include "server/run/timing_resolution.h"
#include "server/run/validation.h"

namespace kbench::server {
namespace {

using ::testing::HasSubstr;

// The names of an admitted run's variants, in run order.
std::vector<std::string> Names(const AdmittedRun& run) {
  std::vector<std::string> names;
  for (size_t i = 0; i < run.problem.variants.size(); ++i)
    names.push_back(run.problem.VariantName(i));
  return names;
}

class Validation : public ::testing::Test {
 protected:
  absl::StatusOr<AdmittedRun> VectorAdd(const v1::VectorAddRequest& request) const {
    return Admit(ToRunRequest(request), limits_, "cpu", defaults_);
  }
  absl::StatusOr<AdmittedRun> Attention(const v1::AttentionRequest& request) const {
    return Admit(ToRunRequest(request), limits_, "cpu", defaults_);
  }
  absl::StatusOr<TimingPlan> Timing(const v1::TimingOptions& timing) const {
    return ValidateTiming(timing, limits_, defaults_);
  }

  static v1::VectorAddRequest SmallVectorAdd() {
    v1::VectorAddRequest request;
    request.set_n(1000);
    return request;
  }
  static v1::AttentionRequest SmallAttention() {
    v1::AttentionRequest request;
    request.set_batch(2);
    request.set_heads(4);
    request.set_seq_len(128);
    request.set_head_dim(64);
    return request;
  }

  const v1::Limits limits_ = DefaultLimits(v1::DeviceInfo());
  const TimingPlan defaults_ = DefaultTiming();
};

// Refused with INVALID_ARGUMENT and a message holding every piece.
template <typename T>
void ExpectRefused(const absl::StatusOr<T>& result, const std::vector<std::string>& pieces) {
  ASSERT_FALSE(result.ok()) << "admitted, expected a refusal naming " << pieces.front();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << result.status();
  for (const std::string& piece : pieces)
    EXPECT_THAT(std::string(result.status().message()), HasSubstr(piece));
}

void ExpectPlanEq(const TimingPlan& got, const TimingPlan& want) {
  EXPECT_EQ(got.warmup_runs, want.warmup_runs);
  EXPECT_EQ(got.min_samples, want.min_samples);
  EXPECT_EQ(got.min_time_ms, want.min_time_ms);
  EXPECT_EQ(got.target_rse, want.target_rse);
  EXPECT_EQ(got.time_budget_ms, want.time_budget_ms);
  EXPECT_EQ(got.max_samples, want.max_samples);
  EXPECT_EQ(got.mode, want.mode);
}

// ---- Admitted requests -----------------------------------------------------

TEST_F(Validation, VectorAddTakesDefaultTimingAndEveryVariant) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.set_seed(77);
  request.set_label("lab 1");
  const auto run = VectorAdd(request);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->problem.request.vector_add().n(), 1000u);
  EXPECT_EQ(run->problem.dtype, kernels::DType::kFp32);
  EXPECT_EQ(run->problem.request.seed(), 77u);
  EXPECT_EQ(Names(*run), (std::vector<std::string>{"naive", "vectorized"}));
  EXPECT_EQ(run->problem.request.label(), "lab 1");
  ExpectPlanEq(run->plan, DefaultTiming());
}

TEST_F(Validation, AttentionTakesDefaultTimingAndEveryVariant) {
  v1::AttentionRequest request = SmallAttention();
  request.set_causal(true);
  request.set_dtype(v1::DTYPE_FP32);
  const auto run = Attention(request);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->problem.request.attention().batch(), 2u);
  EXPECT_EQ(run->problem.request.attention().heads(), 4u);
  EXPECT_EQ(run->problem.request.attention().seq_len(), 128u);
  EXPECT_EQ(run->problem.request.attention().head_dim(), 64u);
  EXPECT_TRUE(run->problem.request.attention().causal());
  EXPECT_EQ(run->problem.dtype, kernels::DType::kFp32);
  EXPECT_EQ(Names(*run), (std::vector<std::string>{"naive", "fused"}));
  ExpectPlanEq(run->plan, DefaultTiming());
}

TEST_F(Validation, KeepsNamedVariantsInRequestOrder) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.add_variants("vectorized");
  request.add_variants("naive");
  const auto run = VectorAdd(request);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(Names(*run), (std::vector<std::string>{"vectorized", "naive"}));
}

TEST_F(Validation, NonZeroTimingFieldsOverrideTheDefaults) {
  v1::TimingOptions timing;
  timing.set_warmup_runs(7);
  timing.set_min_samples(20);
  timing.set_max_samples(50);
  timing.set_min_time_ms(10);
  timing.set_time_budget_ms(500);
  timing.set_target_rse(0.02);
  timing.set_mode(v1::TIMING_MODE_HOT);
  const auto plan = Timing(timing);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ExpectPlanEq(*plan, TimingPlan{.warmup_runs = 7,
                                 .min_samples = 20,
                                 .min_time_ms = 10,
                                 .target_rse = 0.02,
                                 .time_budget_ms = 500,
                                 .max_samples = 50,
                                 .mode = v1::TIMING_MODE_HOT});
}

TEST_F(Validation, AdmitsValuesAtTheLimits) {
  v1::VectorAddRequest request;
  request.set_n(limits_.max_vector_n());
  request.set_label(std::string(limits_.max_label_length(), 'x'));
  request.mutable_timing()->set_time_budget_ms(limits_.max_time_budget_ms());
  request.mutable_timing()->set_max_samples(limits_.max_samples());
  request.mutable_timing()->set_warmup_runs(limits_.max_warmup_runs());
  request.mutable_timing()->set_target_rse(1.0);
  EXPECT_TRUE(VectorAdd(request).ok()) << VectorAdd(request).status();
}

// ---- Problem size ----------------------------------------------------------

TEST_F(Validation, RefusesVectorAddOfZeroElements) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.set_n(0);
  ExpectRefused(VectorAdd(request),
                {"n must be between 1 and", absl::StrCat(limits_.max_vector_n()), "got 0"});
}

TEST_F(Validation, RefusesVectorAddOverMaxVectorN) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.set_n(limits_.max_vector_n() + 1);
  ExpectRefused(VectorAdd(request), {"n must be", absl::StrCat(limits_.max_vector_n()),
                                     absl::StrCat(limits_.max_vector_n() + 1)});
}

TEST_F(Validation, RefusesZeroSeqLen) {
  v1::AttentionRequest request = SmallAttention();
  request.set_seq_len(0);
  ExpectRefused(Attention(request), {"seq_len", absl::StrCat(limits_.max_seq_len()), "got 0"});
}

TEST_F(Validation, RefusesSeqLenOverTheLimit) {
  v1::AttentionRequest request = SmallAttention();
  request.set_batch(1);
  request.set_heads(1);
  request.set_seq_len(limits_.max_seq_len() + 1);
  ExpectRefused(Attention(request), {"seq_len", absl::StrCat(limits_.max_seq_len()),
                                     absl::StrCat(limits_.max_seq_len() + 1)});
}

TEST_F(Validation, RefusesHeadDimOverTheLimit) {
  v1::AttentionRequest request = SmallAttention();
  request.set_head_dim(limits_.max_head_dim() + 1);
  ExpectRefused(Attention(request), {"head_dim", absl::StrCat(limits_.max_head_dim()),
                                     absl::StrCat(limits_.max_head_dim() + 1)});
}

TEST_F(Validation, CapsAnOperatorsHeadDimLimitAtWhatTheKernelsRun) {
  // --max-head-dim 512: a head_dim over kMaxAttentionHeadDim is still
  // refused at admission, naming the kernels' ceiling, not left to fail in
  // the device reference after it was queued.
  v1::Limits limits = limits_;
  limits.set_max_head_dim(2 * kernels::kMaxAttentionHeadDim);
  v1::AttentionRequest request = SmallAttention();
  request.set_head_dim(kernels::kMaxAttentionHeadDim + 8);
  ExpectRefused(Admit(ToRunRequest(request), limits, "cpu", defaults_),
                {"head_dim", absl::StrCat(kernels::kMaxAttentionHeadDim),
                 absl::StrCat(kernels::kMaxAttentionHeadDim + 8)});
  request.set_head_dim(kernels::kMaxAttentionHeadDim);
  EXPECT_TRUE(Admit(ToRunRequest(request), limits, "cpu", defaults_).ok());
}

TEST_F(Validation, RefusesZeroBatch) {
  v1::AttentionRequest request = SmallAttention();
  request.set_batch(0);
  ExpectRefused(Attention(request), {"batch", absl::StrCat(limits_.max_batch()), "got 0"});
}

TEST_F(Validation, RefusesZeroHeads) {
  v1::AttentionRequest request = SmallAttention();
  request.set_heads(0);
  ExpectRefused(Attention(request), {"heads", absl::StrCat(limits_.max_heads()), "got 0"});
}

TEST_F(Validation, RefusesAttentionTensorsOverMaxAttentionElements) {
  // Fused only, so the score check cannot be the one that refuses.
  v1::AttentionRequest request;
  request.set_batch(limits_.max_batch());
  request.set_heads(limits_.max_heads());
  request.set_seq_len(2);
  request.set_head_dim(limits_.max_head_dim());
  request.add_variants("fused");
  const uint64_t elements =
      uint64_t(limits_.max_batch()) * limits_.max_heads() * 2 * limits_.max_head_dim();
  ASSERT_GT(elements, limits_.max_attention_elements());
  ExpectRefused(Attention(request),
                {absl::StrCat(limits_.max_attention_elements()), absl::StrCat(elements)});
}

// A shape whose naive score matrix is over max_score_elements while its
// tensors and GFLOP are within their limits: head_dim 8, so the FLOPs stay
// small while batch * heads * seq_len^2 grows.
v1::AttentionRequest ScoreHeavyAttention(const v1::Limits& limits) {
  v1::AttentionRequest request;
  request.set_batch(1);
  request.set_head_dim(8);
  request.set_seq_len(8000);
  const uint64_t per_head = uint64_t(8000) * 8000;
  request.set_heads(uint32_t(limits.max_score_elements() / per_head + 1));
  return request;
}

TEST_F(Validation, RefusesNaiveAttentionWhoseScoresExceedTheLimit) {
  v1::AttentionRequest request = ScoreHeavyAttention(limits_);
  const double bh = double(request.batch()) * request.heads();
  const double scores = bh * request.seq_len() * request.seq_len();
  ASSERT_GT(scores, double(limits_.max_score_elements()));
  ASSERT_LE(4 * scores * request.head_dim() / 1e9, limits_.max_attention_gflop());
  ASSERT_LE(bh * request.seq_len() * request.head_dim(), double(limits_.max_attention_elements()));
  request.add_variants("fused");
  request.add_variants("naive");
  ExpectRefused(Attention(request),
                {"naive", "max_score_elements", absl::StrCat(limits_.max_score_elements())});
}

TEST_F(Validation, RefusesScoreHeavyAttentionWhenVariantsDefaultToAll) {
  ExpectRefused(Attention(ScoreHeavyAttention(limits_)), {"max_score_elements"});
}

TEST_F(Validation, AdmitsFusedOnlyAttentionOfTheSameShape) {
  v1::AttentionRequest request = ScoreHeavyAttention(limits_);
  request.add_variants("fused");
  const auto run = Attention(request);
  EXPECT_TRUE(run.ok()) << run.status();
}

TEST_F(Validation, RefusesAttentionOverMaxAttentionGflop) {
  v1::AttentionRequest request;
  request.set_batch(1);
  request.set_heads(64);
  request.set_seq_len(4096);
  request.set_head_dim(64);
  request.add_variants("fused");
  const double gflop = 4.0 * 64 * 4096.0 * 4096.0 * 64 / 1e9;  // 275
  ASSERT_GT(gflop, limits_.max_attention_gflop());
  ASSERT_LE(uint64_t(64) * 4096 * 64, limits_.max_attention_elements());
  ExpectRefused(Attention(request),
                {"max_attention_gflop", absl::StrCat(limits_.max_attention_gflop())});
}

// ---- Op, dtype, variants, label --------------------------------------------

TEST_F(Validation, RefusesAnUnknownVariantAndListsTheSupportedOnes) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.add_variants("bogus");
  ExpectRefused(VectorAdd(request), {"variants", "bogus", "naive", "vectorized"});
  v1::AttentionRequest attention = SmallAttention();
  attention.add_variants("naive");
  attention.add_variants("bogus");
  ExpectRefused(Attention(attention), {"variants", "bogus", "naive", "fused"});
}

TEST_F(Validation, RefusesAVariantNamedTwice) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.add_variants("naive");
  request.add_variants("vectorized");
  request.add_variants("naive");
  ExpectRefused(VectorAdd(request), {"variants", "\"naive\"", "twice"});
}

TEST_F(Validation, RefusesMoreVariantsThanTheLimit) {
  v1::VectorAddRequest request = SmallVectorAdd();
  for (uint32_t i = 0; i <= limits_.max_variants(); ++i) request.add_variants("naive");
  ExpectRefused(VectorAdd(request), {"variants", absl::StrCat(limits_.max_variants()),
                                     absl::StrCat(limits_.max_variants() + 1)});
}

TEST_F(Validation, RefusesHalfPrecisionOnTheCpuAndListsFp32) {
  for (v1::DType dtype : {v1::DTYPE_FP16, v1::DTYPE_BF16}) {
    v1::VectorAddRequest request = SmallVectorAdd();
    request.set_dtype(dtype);
    ExpectRefused(VectorAdd(request), {"dtype", dtype == v1::DTYPE_FP16 ? "fp16" : "bf16", "fp32"});
    v1::AttentionRequest attention = SmallAttention();
    attention.set_dtype(dtype);
    ExpectRefused(Attention(attention), {"dtype", "fp32"});
  }
}

TEST_F(Validation, RefusesARequestWithoutAProblemAndNamesTheOps) {
  ExpectRefused(Admit(v1::RunRequest(), limits_, "cpu", defaults_),
                {"problem", "vector_add", "attention"});
}

TEST_F(Validation, RefusesAVariantTheBackendDoesNotRun) {
  ExpectRefused(Admit(ToRunRequest(SmallAttention()), limits_, "tpu", defaults_),
                {"variants", "tpu", "attention"});
}

TEST_F(Validation, RefusesAHeadDimTheFusedCudaKernelDoesNotRunAndListsTheSupported) {
  v1::AttentionRequest request = SmallAttention();
  request.set_head_dim(100);
  request.add_variants("fused");
  ExpectRefused(Admit(ToRunRequest(request), limits_, "cuda", defaults_),
                {"head_dim 100", "fused", "a multiple of 8 from 32 to 256"});
  // Naive runs any head_dim on CUDA, and fused any on the CPU.
  request.clear_variants();
  request.add_variants("naive");
  EXPECT_TRUE(Admit(ToRunRequest(request), limits_, "cuda", defaults_).ok());
  request.clear_variants();
  request.add_variants("fused");
  EXPECT_TRUE(Admit(ToRunRequest(request), limits_, "cpu", defaults_).ok());
}

TEST_F(Validation, DefaultsYieldToLoweredOperatorLimits) {
  v1::Limits lowered = limits_;
  lowered.set_max_samples(100);
  lowered.set_max_warmup_runs(1);
  lowered.set_max_time_budget_ms(50);
  const auto plan = ValidateTiming(v1::TimingOptions(), lowered, defaults_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->max_samples, 100u);
  EXPECT_EQ(plan->warmup_runs, 1u);
  EXPECT_EQ(plan->time_budget_ms, 50);
  EXPECT_LE(plan->min_time_ms, 50);
}

TEST_F(Validation, ResolvedRequestAdmitsToTheSameRun) {
  v1::AttentionRequest request = SmallAttention();
  request.set_seed(5);
  const auto run = Attention(request);
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::RunRequest resolved = Resolved(*run);
  EXPECT_EQ(resolved.variants_size(), 2);
  EXPECT_EQ(resolved.timing().max_samples(), defaults_.max_samples);
  const auto again = Admit(resolved, limits_, "cpu", TimingPlan{});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->problem.variants, run->problem.variants);
  ExpectPlanEq(again->plan, run->plan);
}

TEST_F(Validation, RefusesALabelOverTheLimit) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.set_label(std::string(limits_.max_label_length() + 1, 'x'));
  ExpectRefused(VectorAdd(request), {"label", absl::StrCat(limits_.max_label_length()),
                                     absl::StrCat(limits_.max_label_length() + 1)});
  v1::AttentionRequest attention = SmallAttention();
  attention.set_label(request.label());
  ExpectRefused(Attention(attention), {"label"});
}

TEST_F(Validation, RefusesALabelThatIsNotUtf8NamingTheByte) {
  v1::VectorAddRequest request = SmallVectorAdd();
  for (const std::string& bad : {std::string("lab\xff"), std::string("lab\xc3"),
                                 std::string("lab\xc0\xaf"), std::string("lab\xed\xa0\x80")}) {
    request.set_label(bad);
    ExpectRefused(VectorAdd(request), {"label", "UTF-8", "byte 3"});
  }
  request.set_label("lab 3: caf\xc3\xa9 \xf0\x9f\x9a\x80");  // é and a rocket
  EXPECT_TRUE(VectorAdd(request).ok());
}

TEST_F(Validation, RefusesAVariantNameThatIsNotUtf8NamingItsPlace) {
  v1::AttentionRequest request = SmallAttention();
  request.clear_variants();
  request.add_variants("naive");
  request.add_variants(std::string("fus\xff"));
  ExpectRefused(Attention(request), {"variants[1]", "UTF-8", "byte 3"});
}

TEST_F(Validation, SetsTheRunsWallClockBoundFromTheBudgetAndTheLimits) {
  v1::TimingOptions timing;
  timing.set_time_budget_ms(250);
  const auto plan = Timing(timing);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->deadline_ms, 2 * 250 + 1000 * limits_.max_run_overhead_seconds());
}

// ---- Timing ----------------------------------------------------------------

TEST_F(Validation, RefusesMinSamplesOverMaxSamples) {
  v1::TimingOptions timing;
  timing.set_min_samples(50);
  timing.set_max_samples(20);
  ExpectRefused(Timing(timing), {"timing.min_samples", "timing.max_samples", "20", "50"});
}

TEST_F(Validation, RefusesMinSamplesOverTheDefaultMaxSamples) {
  v1::TimingOptions timing;
  timing.set_min_samples(defaults_.max_samples + 1);
  ExpectRefused(Timing(timing), {"timing.min_samples", absl::StrCat(defaults_.max_samples)});
}

TEST_F(Validation, RefusesMaxSamplesOverTheLimit) {
  v1::TimingOptions timing;
  timing.set_max_samples(limits_.max_samples() + 1);
  ExpectRefused(Timing(timing), {"timing.max_samples", absl::StrCat(limits_.max_samples())});
}

TEST_F(Validation, RefusesWarmupRunsOverTheLimit) {
  v1::TimingOptions timing;
  timing.set_warmup_runs(limits_.max_warmup_runs() + 1);
  ExpectRefused(Timing(timing), {"timing.warmup_runs", absl::StrCat(limits_.max_warmup_runs())});
}

TEST_F(Validation, RefusesATimeBudgetOverTheLimit) {
  v1::TimingOptions timing;
  timing.set_time_budget_ms(limits_.max_time_budget_ms() + 1);
  ExpectRefused(Timing(timing),
                {"timing.time_budget_ms", absl::StrCat(limits_.max_time_budget_ms())});
}

TEST_F(Validation, RefusesANegativeTimeBudget) {
  v1::TimingOptions timing;
  timing.set_time_budget_ms(-5);
  ExpectRefused(Timing(timing), {"timing.time_budget_ms", "-5"});
}

TEST_F(Validation, ZeroTargetRseMeansTheDefault) {
  v1::TimingOptions timing;
  timing.set_target_rse(0);
  const auto plan = Timing(timing);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->target_rse, DefaultTiming().target_rse);
}

TEST_F(Validation, RefusesATargetRseOutsideZeroToOne) {
  for (double rse : {-0.1, 1.5}) {
    v1::TimingOptions timing;
    timing.set_target_rse(rse);
    ExpectRefused(Timing(timing), {"timing.target_rse", absl::StrCat(rse)});
  }
}

TEST_F(Validation, RefusesAMinTimeOverTheTimeBudget) {
  v1::TimingOptions timing;
  timing.set_time_budget_ms(1000);
  timing.set_min_time_ms(2000);
  ExpectRefused(Timing(timing), {"timing.min_time_ms", "timing.time_budget_ms", "1000", "2000"});
}

TEST_F(Validation, RefusesAMinTimeOverTheDefaultTimeBudget) {
  v1::TimingOptions timing;
  timing.set_min_time_ms(defaults_.time_budget_ms + 1);
  ExpectRefused(Timing(timing), {"timing.min_time_ms", absl::StrCat(defaults_.time_budget_ms)});
}

TEST_F(Validation, RefusesAnUnknownTimingMode) {
  v1::TimingOptions timing;
  timing.set_mode(v1::TimingMode(42));
  ExpectRefused(Timing(timing), {"timing.mode", "42"});
}

TEST_F(Validation, TimingRefusalsAlsoRefuseTheRun) {
  v1::VectorAddRequest request = SmallVectorAdd();
  request.mutable_timing()->set_target_rse(2);
  ExpectRefused(VectorAdd(request), {"timing.target_rse"});
  v1::AttentionRequest attention = SmallAttention();
  attention.mutable_timing()->set_time_budget_ms(limits_.max_time_budget_ms() * 2);
  ExpectRefused(Attention(attention), {"timing.time_budget_ms"});
}

}  // namespace
}  // namespace kbench::server
