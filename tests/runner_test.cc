// The runner as a specification: event order, interleaving, stopping rule,
// statistics, verification and speedups, on a fake device of known timings
// and on the real CPU backend.
#include "server/runner.h"

#include <gtest/gtest.h>

#include "server/cpu_device.h"
#include "tests/fake_device.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

using testing::FakeDevice;
using testing::FakeVariant;
using testing::RecordingSink;

VectorAddProblem Problem(std::vector<std::string> variants, int64_t n = 1000) {
  VectorAddProblem p;
  p.n = n;
  p.seed = 42;
  p.variants = std::move(variants);
  return p;
}

TimingPlan FastPlan() {
  TimingPlan plan;
  plan.warmup_runs = 1;
  plan.min_samples = 5;
  plan.min_time_ms = 0;
  plan.target_rse = 0.01;
  plan.time_budget_ms = 10000;
  plan.max_samples = 50;
  return plan;
}

std::vector<v1::VariantResult> Results(const std::vector<v1::RunEvent>& events) {
  std::vector<v1::VariantResult> out;
  for (const auto& e : events)
    if (e.has_variant_result()) out.push_back(e.variant_result());
  return out;
}

TEST(Runner, EmitsStartedThenSamplesThenResultsThenSummaryLast) {
  FakeDevice device({{"naive", {2.0}}, {"vectorized", {1.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"naive", "vectorized"}), FastPlan(),
                              "run-1", sink).ok());
  const auto events = sink.events();
  ASSERT_GE(events.size(), 4u);
  EXPECT_TRUE(events.front().has_started());
  EXPECT_EQ(events.front().started().run_id(), "run-1");
  EXPECT_EQ(events.front().started().seed(), 42u);
  EXPECT_EQ(events.front().started().timing_method(), "fake clock");
  EXPECT_TRUE(events.back().has_summary());
  EXPECT_EQ(events.back().summary().run_id(), "run-1");
  // Samples all come before the first result.
  size_t first_result = 0;
  while (!events[first_result].has_variant_result()) ++first_result;
  for (size_t i = first_result; i + 1 < events.size(); ++i)
    EXPECT_TRUE(events[i].has_variant_result()) << "event " << i;
  const auto results = Results(events);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].variant(), "naive");
  EXPECT_EQ(results[1].variant(), "vectorized");
}

TEST(Runner, InterleavesVariantsRoundByRound) {
  FakeDevice device({{"a", {1.0}}, {"b", {1.0}}, {"c", {1.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"c", "a", "b"}), FastPlan(), "r", sink).ok());
  const auto timed = device.timed();
  ASSERT_EQ(timed.size() % 3, 0u);
  ASSERT_GE(timed.size(), 15u);
  for (size_t i = 0; i < timed.size(); ++i)
    EXPECT_EQ(timed[i], std::vector<std::string>({"c", "a", "b"})[i % 3]) << i;
  // Sample events carry per-variant indices 0, 1, 2, ...
  int expected_index = 0;
  for (const auto& e : sink.events()) {
    if (!e.has_sample() || e.sample().variant() != "a") continue;
    EXPECT_EQ(e.sample().index(), uint32_t(expected_index++));
  }
}

TEST(Runner, StopsWhenEveryVariantConverged) {
  FakeDevice device({{"naive", {2.0}}, {"vectorized", {1.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"naive", "vectorized"}), FastPlan(), "r", sink).ok());
  for (const auto& r : Results(sink.events())) {
    // The jitter is 0.1%, so the RSE target of 1% is met at min_samples.
    EXPECT_EQ(r.stats().samples(), 5u);
    EXPECT_EQ(r.stats().stop_reason(), v1::STOP_REASON_CONVERGED);
    EXPECT_LT(r.stats().rse(), 0.01);
  }
}

TEST(Runner, StopsAtMaxSamplesWhenTheTargetIsOutOfReach) {
  FakeDevice device({{"naive", {2.0}}});
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;
  plan.max_samples = 7;
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"naive"}), plan, "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].stats().samples(), 7u);
  EXPECT_EQ(results[0].stats().stop_reason(), v1::STOP_REASON_MAX_SAMPLES);
}

TEST(Runner, StopsWhenTheTimeBudgetRunsOut) {
  FakeDevice device({{"naive", {2.0}}}, /*sleep_ms=*/5);
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;
  plan.max_samples = 100000;
  plan.time_budget_ms = 60;
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"naive"}), plan, "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].stats().stop_reason(), v1::STOP_REASON_TIME_BUDGET);
  EXPECT_GE(results[0].stats().samples(), 5u);
  EXPECT_LT(results[0].stats().samples(), 100u);
}

TEST(Runner, KeepsSamplingUntilTheMinimumTimeHasPassed) {
  FakeDevice device({{"naive", {2.0}}}, /*sleep_ms=*/2);
  TimingPlan plan = FastPlan();
  plan.min_time_ms = 80;
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"naive"}), plan, "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  // 80 ms of 2 ms samples: far more than min_samples.
  EXPECT_GE(results[0].stats().samples(), 20u);
  EXPECT_EQ(results[0].stats().stop_reason(), v1::STOP_REASON_CONVERGED);
}

TEST(Runner, ReportsSpeedupOverTheFirstVariantWithAVerdict) {
  FakeDevice device({{"slow", {4.0}}, {"fast", {1.0}}, {"same", {4.0}}, {"slower", {8.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"slow", "fast", "same", "slower"}),
                              FastPlan(), "r", sink).ok());
  const v1::Summary summary = sink.events().back().summary();
  ASSERT_EQ(summary.speedups_size(), 3);
  EXPECT_EQ(summary.speedups(0).variant(), "fast");
  EXPECT_EQ(summary.speedups(0).baseline(), "slow");
  EXPECT_NEAR(summary.speedups(0).speedup(), 4.0, 1e-9);
  EXPECT_LE(summary.speedups(0).ci_low(), summary.speedups(0).speedup());
  EXPECT_GE(summary.speedups(0).ci_high(), summary.speedups(0).speedup());
  EXPECT_EQ(summary.speedups(0).verdict(), v1::VERDICT_FASTER);
  EXPECT_NEAR(summary.speedups(1).speedup(), 1.0, 1e-9);
  EXPECT_EQ(summary.speedups(1).verdict(), v1::VERDICT_NO_DIFFERENCE);
  EXPECT_NEAR(summary.speedups(2).speedup(), 0.5, 1e-9);
  EXPECT_EQ(summary.speedups(2).verdict(), v1::VERDICT_SLOWER);
}

TEST(Runner, ComputesGigabytesPerSecondAgainstTheCopyCeiling) {
  FakeDevice device({{"naive", {2.0}}}, 0, /*copy_gbps=*/10.0);
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"naive"}, 1000000), FastPlan(), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  const v1::Throughput& t = results[0].throughput();
  EXPECT_EQ(t.unit(), "GB/s");
  // 3 * 1e6 * 4 bytes in 2 ms (median of 2 ms +- 0.1%) = 6 GB/s.
  EXPECT_NEAR(t.value(), 6.0, 0.01);
  EXPECT_NEAR(t.fraction_of_ceiling(), 0.6, 0.001);
  EXPECT_NE(t.ceiling().find("10 GB/s"), std::string::npos) << t.ceiling();
  EXPECT_TRUE(results[0].clocks().available());
  EXPECT_EQ(results[0].clocks().sm_clock_mhz_max(), 1980.0);
}

TEST(Runner, WrongOutputIsAFailedResultNotAnError) {
  FakeVariant wrong{1.0};
  wrong.correct = false;
  FakeDevice device({{"good", {1.0}}, {"bad", wrong}});
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"good", "bad"}), FastPlan(), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].verification().passed());
  EXPECT_EQ(results[0].verification().elements_checked(), 1000u);
  EXPECT_FALSE(results[1].verification().passed());
  EXPECT_NEAR(results[1].verification().max_abs_error(), 1.0, 1e-6);
  EXPECT_FALSE(sink.events().back().summary().all_verified());
}

TEST(Runner, AnUnwrittenOutputStaysPoisonedAndFails) {
  FakeVariant lazy{1.0};
  lazy.writes = false;
  FakeDevice device({{"good", {1.0}}, {"lazy", lazy}});
  RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, Problem({"good", "lazy"}), FastPlan(), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  // The good variant ran first and wrote the buffer: only poisoning before
  // each variant catches the lazy one.
  EXPECT_FALSE(results[1].verification().passed());
  EXPECT_EQ(results[1].verification().non_finite(), 1000u);
}

TEST(Runner, StopsBetweenSamplesOnceCancelled) {
  FakeDevice device({{"naive", {1.0}}});
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;
  plan.max_samples = 1000;
  RecordingSink sink(/*cancel_after=*/4);  // started + 3 samples
  const absl::Status status = RunVectorAddJob(device, Problem({"naive"}), plan, "r", sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(device.timed_count(), 3);
  for (const auto& e : sink.events()) EXPECT_FALSE(e.has_summary());
}

TEST(Runner, CpuAttentionNaiveAndFusedBothVerify) {
  auto device = MakeCpuDevice();
  AttentionProblem problem;
  problem.shape = {.batch = 2, .heads = 2, .seq_len = 60, .head_dim = 16, .causal = true};
  problem.seed = 7;
  problem.variants = {"naive", "fused"};
  RecordingSink sink;
  ASSERT_TRUE(RunAttentionJob(*device, problem, FastPlan(), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    EXPECT_TRUE(r.verification().passed()) << r.variant() << " " << r.verification().rel_l2_error();
    EXPECT_EQ(r.verification().elements_checked(), 2u * 2 * 60 * 16);
    EXPECT_EQ(r.throughput().unit(), "TFLOP/s");
    EXPECT_GT(r.throughput().value(), 0);
  }
  EXPECT_TRUE(sink.events().back().summary().all_verified());
}

TEST(Runner, LargeAttentionIsVerifiedOnSampledRows) {
  auto device = MakeCpuDevice();
  AttentionProblem problem;
  problem.shape = {.batch = 1, .heads = 4, .seq_len = 200, .head_dim = 8, .causal = false};
  problem.seed = 9;
  problem.variants = {"fused"};
  TimingPlan plan = FastPlan();
  plan.max_samples = 5;
  RecordingSink sink;
  ASSERT_TRUE(RunAttentionJob(*device, problem, plan, "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].verification().passed());
  EXPECT_EQ(results[0].verification().elements_checked(),
            uint64_t(kMaxVerifiedAttentionRows) * 8);
  EXPECT_NE(results[0].verification().method().find("sample"), std::string::npos);
}

}  // namespace
}  // namespace kbench::server
