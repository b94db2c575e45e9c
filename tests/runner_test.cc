// The runner as a specification: event order, interleaving, stopping rule,
// statistics, verification and speedups, on a fake device of known timings
// and on the real CPU backend.
#include "server/worker/runner.h"

#include <gtest/gtest.h>

#include <set>

#include "proto/ops/attention/attention_op.h"
#include "server/worker/backends/cpu/cpu_device.h"
#include "server/worker/statistics.h"
#include "tests/fake_device.h"
#include "tests/fake_op.h"
#include "tests/recording_sink.h"

namespace kbench::server::worker {
namespace {

using testing::FakeDevice;
using testing::FakeOp;
using testing::FakeVariant;
using testing::RecordingSink;

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

// Runs the named variants of a FakeOp over n elements on `device`.
absl::Status RunFake(Device& device, const std::vector<std::string>& variants,
                     const TimingPlan& plan, RunSink& sink, int64_t n = 1000,
                     const std::string& run_id = "r") {
  const FakeOp op(variants);
  return RunJob(device, op.Run(variants, n, plan), run_id, sink);
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
  ASSERT_TRUE(RunFake(device, {"naive", "vectorized"}, FastPlan(), sink, 1000, "run-1").ok());
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

// A learner's kernel runs as a variant after the built-ins; its result
// carries how the server compiled it (a built-in's nothing of it), and the
// summary compares it with every built-in, not only the baseline.
TEST(Runner, ALearnersKernelIsComparedWithEveryBuiltInAndSaysHowItCompiled) {
  FakeDevice device({{"naive", {2.0}}, {"vectorized", {1.5}}, {"mine.cu", {1.0}}});
  const FakeOp op({"naive", "vectorized"});
  AdmittedRun run = op.Run({"naive", "vectorized"}, 1000, FastPlan());
  LearnerKernel& kernel = run.problem.kernels.emplace_back();
  kernel.name = "mine.cu";
  kernel.facts.set_arch("sm_90a");
  kernel.facts.set_registers_per_thread(40);
  kernel.facts.set_spill_store_bytes(8);
  kernel.facts.set_log("mine.cu(3): warning: variable \"x\" was declared but never referenced");
  RecordingSink sink;
  ASSERT_TRUE(RunJob(device, run, "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_FALSE(results[0].has_compile());
  EXPECT_FALSE(results[1].has_compile());
  EXPECT_EQ(results[2].variant(), "mine.cu");
  EXPECT_EQ(results[2].compile().registers_per_thread(), 40u);
  EXPECT_EQ(results[2].compile().spill_store_bytes(), 8u);
  EXPECT_NE(results[2].compile().log().find("never referenced"), std::string::npos);
  // Each variant against the baseline, then the kernel against the other
  // built-in, with its interval.
  const auto events = sink.events();
  ASSERT_TRUE(events.back().has_summary());
  const v1::Summary& summary = events.back().summary();
  ASSERT_EQ(summary.speedups_size(), 3);
  EXPECT_EQ(summary.speedups(0).variant(), "vectorized");
  EXPECT_EQ(summary.speedups(1).variant(), "mine.cu");
  EXPECT_EQ(summary.speedups(1).baseline(), "naive");
  EXPECT_DOUBLE_EQ(summary.speedups(1).speedup(), 2.0);
  EXPECT_EQ(summary.speedups(2).variant(), "mine.cu");
  EXPECT_EQ(summary.speedups(2).baseline(), "vectorized");
  EXPECT_DOUBLE_EQ(summary.speedups(2).speedup(), 1.5);
  EXPECT_GT(summary.speedups(2).rounds(), 0u);
}

// A run of `op`'s built-in "naive" and learners' kernels after it.
AdmittedRun WithLearnersKernel(const FakeOp& op, const TimingPlan& plan,
                               const std::vector<std::string>& kernels = {"mine.cu"}) {
  AdmittedRun run = op.Run({"naive"}, 1000, plan);
  for (const std::string& name : kernels) run.problem.kernels.emplace_back().name = name;
  return run;
}

// An output kept from the inputs a kernel first saw (a cache keyed on the
// input pointers) is right until the inputs change: every round of a run
// with a learner's kernel redraws them from a seed the worker draws.
TEST(Runner, ALearnersRunRedrawsItsInputsEveryRoundSoAKeptOutputFails) {
  FakeVariant cached{1.0};
  cached.keeps_first_output = true;
  FakeDevice device({{"naive", {2.0}}, {"mine.cu", cached}});
  const FakeOp op({"naive"});
  RecordingSink sink;
  ASSERT_TRUE(RunJob(device, WithLearnersKernel(op, FastPlan()), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].verification().passed()) << results[0].verification().failure();
  EXPECT_FALSE(results[1].verification().passed());
  EXPECT_GT(results[1].verification().elements_over_tolerance(), 0u);
  const std::vector<uint64_t> seeds = device.redraws();
  // One draw per round: each round times each variant once.
  EXPECT_EQ(seeds.size(), size_t(device.timed_count()) / 2);
  ASSERT_GE(seeds.size(), 2u);
  for (uint64_t seed : seeds) EXPECT_NE(seed, 42u) << "the request's seed again";
  EXPECT_EQ(std::set<uint64_t>(seeds.begin(), seeds.end()).size(), seeds.size());
  // The untimed check, then the first and last rounds at least.
  EXPECT_GE(results[0].verification().checked_runs(), 3u);
}

// A learner's kernel that shortcuts a launch when it can tell the launch
// is not checked (its output not poisoned) or that it has seen the inputs
// before: in a run with a learner's kernel every sample is poisoned and
// every round's inputs are new, so neither shortcut ever applies, and each
// kernel is timed doing its work.
TEST(Runner, ALearnersKernelFindsNoLaunchItCouldShortcut) {
  FakeVariant watcher{1.0};
  watcher.skips_unless_poisoned = true;
  FakeVariant cache{1.0};
  cache.caches_by_inputs = true;
  FakeDevice device({{"naive", {2.0}}, {"watcher.cu", watcher}, {"cache.cu", cache}});
  const FakeOp op({"naive"});
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;
  plan.max_samples = 40;
  RecordingSink sink;
  ASSERT_TRUE(
      RunJob(device, WithLearnersKernel(op, plan, {"watcher.cu", "cache.cu"}), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 3u);
  for (const auto& result : results) {
    EXPECT_TRUE(result.verification().passed()) << result.variant();
    EXPECT_GT(result.stats().min_ms(), 0.5) << result.variant() << " took a shortcut";
  }
}

TEST(Runner, ABuiltInRunChecksItsFirstAndLastRoundsOnTheRequestsInputs) {
  FakeDevice device({{"naive", {2.0}}, {"vectorized", {1.0}}});
  RecordingSink sink;
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;  // runs to max_samples
  plan.max_samples = 200;
  ASSERT_TRUE(RunFake(device, {"naive", "vectorized"}, plan, sink).ok());
  EXPECT_TRUE(device.redraws().empty());
  for (const auto& result : Results(sink.events()))
    EXPECT_EQ(result.verification().checked_runs(), 3u) << result.variant();
}

// Beside the first and last rounds, a random share of the others is
// checked (at most kMaxRandomCheckedRounds): no kernel can tell which.
// Over 198 other rounds at a share of 1/8, fewer than two random checks
// has a chance of about 1e-10.
TEST(Runner, ALearnersRunChecksARandomShareOfItsOtherRounds) {
  FakeDevice device({{"naive", {2.0}}, {"mine.cu", {1.0}}});
  const FakeOp op({"naive"});
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;
  plan.max_samples = 200;
  RecordingSink sink;
  ASSERT_TRUE(RunJob(device, WithLearnersKernel(op, plan), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  // The untimed check, then the checked rounds.
  const size_t checked_rounds = results[0].verification().checked_runs() - 1;
  EXPECT_GE(checked_rounds, 2u + 2u);
  EXPECT_LE(checked_rounds, 2u + size_t(kMaxRandomCheckedRounds));
  for (const auto& result : results) {
    EXPECT_TRUE(result.verification().passed()) << result.variant();
    EXPECT_EQ(result.verification().checked_runs(), 1 + checked_rounds) << result.variant();
  }
}

// What a learner's kernel prints comes back with its result, cut at
// kMaxKernelOutputBytes, with the count of everything it printed.
TEST(Runner, ALearnersPrintedOutputComesBackCutAtItsBound) {
  FakeVariant chatty{1.0};
  chatty.prints = std::string(1000, 'x');
  FakeDevice device({{"naive", {2.0}}, {"mine.cu", chatty}});
  const FakeOp op({"naive"});
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;
  plan.max_samples = 100;
  RecordingSink sink;
  ASSERT_TRUE(RunJob(device, WithLearnersKernel(op, plan), "r", sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].kernel_output().empty());
  EXPECT_EQ(results[0].kernel_output_bytes(), 0u);
  // The check, the warm-up and 100 samples: 102 runs of 1000 bytes.
  EXPECT_EQ(results[1].kernel_output_bytes(), 102'000u);
  EXPECT_EQ(results[1].kernel_output().size(), kMaxKernelOutputBytes);
}

TEST(Runner, InterleavesVariantsInRoundsOfAlternatingOrder) {
  FakeDevice device({{"a", {1.0}}, {"b", {1.0}}, {"c", {1.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"c", "a", "b"}, FastPlan(), sink).ok());
  const auto timed = device.timed();
  ASSERT_EQ(timed.size() % 3, 0u);
  ASSERT_GE(timed.size(), 15u);
  // Even rounds in the request's order, odd rounds reversed: c a b, b a c.
  const std::vector<std::string> order = {"c", "a", "b", "b", "a", "c"};
  for (size_t i = 0; i < timed.size(); ++i) EXPECT_EQ(timed[i], order[i % 6]) << i;
  // Batches carry each variant's samples in order, every one of them, and
  // the running total.
  uint32_t total = 0;
  for (const auto& e : sink.events())
    for (const v1::VariantSamples& batch : e.samples().variants()) {
      if (batch.variant() != "a") continue;
      EXPECT_EQ(batch.total(), total + uint32_t(batch.ms_size()));
      total = batch.total();
    }
  EXPECT_EQ(total, timed.size() / 3);
}

TEST(Runner, StopsWhenEveryVariantConverged) {
  FakeDevice device({{"naive", {2.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"naive"}, FastPlan(), sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  // The jitter is 0.1%, so the RSE target of 1% is met at min_samples.
  EXPECT_EQ(results[0].stats().samples(), 5u);
  EXPECT_EQ(results[0].stats().stop_reason(), v1::STOP_REASON_CONVERGED);
  EXPECT_LT(results[0].stats().rse(), 0.01);
}

TEST(Runner, SamplesTwoVariantsForTheRoundsOfAVerdictBeforeConverging) {
  FakeDevice device({{"naive", {2.0}}, {"vectorized", {1.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"naive", "vectorized"}, FastPlan(), sink).ok());
  for (const auto& r : Results(sink.events())) {
    // Converged at min_samples (5), but a speedup's verdict needs 6 rounds.
    EXPECT_EQ(r.stats().samples(), kMinSamplesFor95);
    EXPECT_EQ(r.stats().stop_reason(), v1::STOP_REASON_CONVERGED);
  }
  const v1::Speedup& s = sink.events().back().summary().speedups(0);
  EXPECT_EQ(s.rounds(), kMinSamplesFor95);
  EXPECT_EQ(s.verdict_min_rounds(), kMinSamplesFor95);
  EXPECT_EQ(s.ci_confidence(), 0.95);
  EXPECT_EQ(s.verdict(), v1::VERDICT_FASTER);
}

TEST(Runner, GivesNoVerdictWhenMaxSamplesEndsSamplingBeforeAVerdictsRounds) {
  FakeDevice device({{"slow", {4.0}}, {"fast", {1.0}}});
  TimingPlan plan = FastPlan();
  plan.min_samples = 2;
  plan.max_samples = 2;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"slow", "fast"}, plan, sink).ok());
  const v1::Speedup& s = sink.events().back().summary().speedups(0);
  EXPECT_EQ(s.rounds(), 2u);
  EXPECT_EQ(s.verdict(), v1::VERDICT_TOO_FEW_SAMPLES);
  EXPECT_EQ(s.ci_confidence(), 0.0);
  EXPECT_NEAR(s.speedup(), 4.0, 0.01);
}

TEST(Runner, TheSpeedupIsTheRatioOfTheMediansItIsShownBeside) {
  FakeDevice device({{"slow", {4.0}}, {"fast", {1.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"slow", "fast"}, FastPlan(), sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_DOUBLE_EQ(sink.events().back().summary().speedups(0).speedup(),
                   results[0].stats().median_ms() / results[1].stats().median_ms());
}

TEST(Runner, StopsAtMaxSamplesWhenTheTargetIsOutOfReach) {
  FakeDevice device({{"naive", {2.0}}});
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-9;
  plan.max_samples = 7;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"naive"}, plan, sink).ok());
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
  ASSERT_TRUE(RunFake(device, {"naive"}, plan, sink).ok());
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
  ASSERT_TRUE(RunFake(device, {"naive"}, plan, sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  // 80 ms of 2 ms samples: far more than min_samples.
  EXPECT_GE(results[0].stats().samples(), 20u);
  EXPECT_EQ(results[0].stats().stop_reason(), v1::STOP_REASON_CONVERGED);
}

TEST(Runner, ReportsSpeedupOverTheFirstVariantWithAVerdict) {
  FakeDevice device({{"slow", {4.0}}, {"fast", {1.0}}, {"same", {4.0}}, {"slower", {8.0}}});
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"slow", "fast", "same", "slower"}, FastPlan(), sink).ok());
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
  ASSERT_TRUE(RunFake(device, {"naive"}, FastPlan(), sink, 1000000).ok());
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
  ASSERT_TRUE(RunFake(device, {"good", "bad"}, FastPlan(), sink).ok());
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
  ASSERT_TRUE(RunFake(device, {"good", "lazy"}, FastPlan(), sink).ok());
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
  RecordingSink sink(/*cancel_after_samples=*/3);
  const absl::Status status = RunFake(device, {"naive"}, plan, sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(device.timed_count(), 3);
  for (const auto& e : sink.events()) EXPECT_FALSE(e.has_summary());
}

TEST(Runner, AVariantWrongOnlyWhenTimedFailsVerification) {
  FakeVariant flaky{1.0};
  flaky.wrong_when_timed = true;
  FakeDevice device({{"good", {1.0}}, {"flaky", flaky}});
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"good", "flaky"}, FastPlan(), sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].verification().passed());
  EXPECT_FALSE(results[1].verification().passed());
  EXPECT_FALSE(sink.events().back().summary().all_verified());
}

TEST(Runner, ASmallEffectIsNoDifferenceEvenWithATightInterval) {
  // 1% faster with 0.1% jitter: the interval excludes 1, the effect is
  // under the 2% minimum.
  FakeDevice device({{"base", {1.01}}, {"tuned", {1.0}}});
  RecordingSink sink;
  TimingPlan plan = FastPlan();
  plan.min_samples = 20;
  ASSERT_TRUE(RunFake(device, {"base", "tuned"}, plan, sink).ok());
  const v1::Speedup& s = sink.events().back().summary().speedups(0);
  EXPECT_GT(s.ci_low(), 1.0);
  EXPECT_EQ(s.min_effect(), 0.02);
  EXPECT_EQ(s.verdict(), v1::VERDICT_NO_DIFFERENCE);
  plan.min_effect = 0.005;
  RecordingSink again;
  ASSERT_TRUE(RunFake(device, {"base", "tuned"}, plan, again).ok());
  EXPECT_EQ(again.events().back().summary().speedups(0).verdict(), v1::VERDICT_FASTER);
}

TEST(Runner, OneSampleHasNoRseAndAnIntervalOfNoConfidence) {
  FakeDevice device({{"naive", {2.0}}});
  TimingPlan plan = FastPlan();
  plan.min_samples = 1;
  plan.max_samples = 1;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"naive"}, plan, sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].stats().samples(), 1u);
  EXPECT_FALSE(results[0].stats().has_rse());
  EXPECT_EQ(results[0].stats().median_ci_confidence(), 0.0);
}

TEST(Runner, WatchesTheClocksAroundEverySampleAndCountsThrottledOnes) {
  FakeDevice device({{"a", {1.0}}, {"b", {1.0}}});
  // Two variants per round: the script's odd readings are b's in even
  // rounds and a's in odd ones; every fourth reading is throttled.
  device.SetClockScript({{true, 1980, 1980, false},
                         {true, 1700, 1980, false},
                         {true, 1980, 1980, false},
                         {true, 1400, 1600, true}});
  TimingPlan plan = FastPlan();
  plan.min_samples = plan.max_samples = 8;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"a", "b"}, plan, sink).ok());
  EXPECT_EQ(device.clock_calls_out_of_turn(), 0);
  uint32_t throttled = 0;
  for (const auto& r : Results(sink.events())) {
    EXPECT_TRUE(r.clocks().available());
    EXPECT_EQ(r.stats().samples(), 8u) << "nothing discarded unless asked";
    EXPECT_EQ(r.clocks().discarded_samples(), 0u);
    throttled += r.clocks().throttled_samples();
    if (r.clocks().throttled_samples() > 0) {
      EXPECT_TRUE(r.clocks().throttled());
      EXPECT_EQ(r.clocks().sm_clock_mhz_min(), 1400);
    }
  }
  EXPECT_EQ(throttled, 16u / 4);
}

TEST(Runner, DiscardsThrottledSamplesFromStatisticsAndSpeedupsWhenAsked) {
  FakeDevice device({{"a", {1.0}}, {"b", {1.0}}});
  // Round r takes readings 2r and 2r + 1 (mod 6), in the round's order:
  // a b, b a, ... so reading 3 is a's in round 1 and b's in round 4.
  device.SetClockScript({{true, 1980, 1980, false},
                         {true, 1980, 1980, false},
                         {true, 1980, 1980, false},
                         {true, 1400, 1400, true},
                         {true, 1980, 1980, false},
                         {true, 1980, 1980, false}});
  TimingPlan plan = FastPlan();
  plan.min_samples = plan.max_samples = 6;
  plan.discard_throttled = true;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"a", "b"}, plan, sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    EXPECT_EQ(r.stats().samples(), 5u) << r.variant();
    EXPECT_EQ(r.clocks().throttled_samples(), 1u) << r.variant();
    EXPECT_EQ(r.clocks().discarded_samples(), 1u) << r.variant();
  }
}

TEST(Runner, KeepsEverySampleWhenEveryOneRanThrottled) {
  FakeDevice device({{"a", {1.0}}});
  device.SetClockScript({{true, 1400, 1400, true}});
  TimingPlan plan = FastPlan();
  plan.min_samples = plan.max_samples = 5;
  plan.discard_throttled = true;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"a"}, plan, sink).ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].stats().samples(), 5u);
  EXPECT_EQ(results[0].clocks().throttled_samples(), 5u);
  EXPECT_EQ(results[0].clocks().discarded_samples(), 0u);
}

AdmittedRun CpuAttention(uint32_t batch, uint32_t heads, uint32_t seq_len, uint32_t head_dim,
                         bool causal, std::vector<int> variants, uint64_t seed,
                         const TimingPlan& plan) {
  AdmittedRun run;
  run.problem.op = &proto::ops::AttentionOp();
  v1::AttentionProblem* p = run.problem.request.mutable_attention();
  p->set_batch(batch);
  p->set_heads(heads);
  p->set_seq_len(seq_len);
  p->set_head_dim(head_dim);
  p->set_causal(causal);
  run.problem.request.set_seed(seed);
  run.problem.variants = std::move(variants);
  run.plan = plan;
  return run;
}

TEST(Runner, CpuAttentionNaiveAndFusedBothVerify) {
  auto device = worker::backends::cpu::MakeCpuDevice();
  const AdmittedRun run =
      CpuAttention(2, 2, 60, 16, true, {proto::ops::kAttentionNaive, proto::ops::kAttentionFused},
                   7, FastPlan());
  RecordingSink sink;
  ASSERT_TRUE(RunJob(*device, run, "r", sink).ok());
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

TEST(Runner, AttentionAboveTheRowBudgetHasEveryElementChecked) {
  // 4 * 80 = 320 batch-heads: more than the 256 rows checked against the
  // double reference, so those rows are a sample; the device reference
  // still checks every element.
  auto device = worker::backends::cpu::MakeCpuDevice();
  TimingPlan plan = FastPlan();
  plan.max_samples = 3;
  RecordingSink sink;
  ASSERT_TRUE(RunJob(*device,
                     CpuAttention(4, 80, 16, 8, false, {proto::ops::kAttentionFused}, 9, plan), "r",
                     sink)
                  .ok());
  const auto results = Results(sink.events());
  ASSERT_EQ(results.size(), 1u);
  const v1::Verification& v = results[0].verification();
  EXPECT_TRUE(v.passed()) << v.failure();
  EXPECT_EQ(v.elements_checked(), 4u * 80 * 16 * 8);
  EXPECT_EQ(v.method(),
            "all 40,960 elements against the device reference; 256 rows against the double "
            "reference (seeded, spread over all 320 batch-heads; first, last and tail-tile "
            "rows included)");
  EXPECT_GT(v.atol(), 0);
  EXPECT_GT(v.rtol(), 0);
  EXPECT_LT(v.reference_rel_l2_error(), v.tolerance());
}

TEST(Runner, SendsSamplesInBatchesBoundedByTheRunsDurationNotItsSampleCount) {
  FakeDevice device({{"a", {1.0}}, {"b", {1.0}}});
  TimingPlan plan = FastPlan();
  plan.target_rse = 1e-12;  // never met: max_samples ends sampling
  plan.min_samples = 20000;
  plan.max_samples = 20000;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"a", "b"}, plan, sink).ok());
  size_t batches = 0, times = 0;
  for (const auto& e : sink.events()) {
    if (!e.has_samples()) continue;
    ++batches;
    for (const v1::VariantSamples& v : e.samples().variants()) times += size_t(v.ms_size());
  }
  EXPECT_EQ(times, 40000u);  // every sample, once
  const double wall_ms = sink.events().back().summary().wall_ms();
  // At most one batch each 250 ms or 8192 samples, and the last one.
  EXPECT_LE(double(batches), wall_ms / 250 + 40000.0 / 8192 + 2) << wall_ms << " ms";
}

TEST(Runner, WarmUpsStopOnceTheyHaveTakenTheTimeBudget) {
  FakeDevice device({{"a", {1.0}}}, /*sleep_ms=*/5);
  TimingPlan plan = FastPlan();
  plan.warmup_runs = 100;  // 500 ms of warm-up if all ran
  plan.time_budget_ms = 20;
  plan.min_samples = 1;
  RecordingSink sink;
  ASSERT_TRUE(RunFake(device, {"a"}, plan, sink).ok());
  EXPECT_LT(sink.events().back().summary().wall_ms(), 300);
}

TEST(Runner, ARunPastItsWallClockBoundEndsWithDeadlineExceeded) {
  FakeDevice device({{"a", {1.0}}, {"b", {1.0}}}, /*sleep_ms=*/30);
  TimingPlan plan = FastPlan();
  plan.deadline_ms = 40;  // the two verification runs alone take 60 ms
  RecordingSink sink;
  const absl::Status status = RunFake(device, {"a", "b"}, plan, sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(status.message().find("wall-clock bound of 40 ms"), std::string::npos) << status;
  for (const auto& e : sink.events()) EXPECT_FALSE(e.has_summary());
}

}  // namespace
}  // namespace kbench::server::worker
