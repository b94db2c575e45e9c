// The harness every run goes through, on the device's worker thread:
//   1. prepare the problem on the device (inputs from the seed);
//   2. for each variant: poison the output, run once, verify with the op's
//      verifier (proto/ops/op.h: every element against the device
//      reference, sampled rows against the double reference);
//   3. warm-up runs of each variant, never timed, in rounds until
//      warmup_runs rounds or until they have taken time_budget_ms (at least
//      one round);
//   4. timed samples in rounds, variants interleaved in alternating order
//      (A B, B A, ...), the first and last rounds re-poisoned and checked
//      (what was timed is what was verified). A run with a learner's kernel
//      also checks a random share of the other rounds (kCheckedRoundShare,
//      at most kMaxRandomCheckedRounds), redraws the inputs from a fresh
//      seed the worker draws before every round (Workload::Redraw) and
//      poisons the output before every sample: no launch can tell whether
//      it is checked, and none meets inputs or an output an earlier launch
//      saw, so kept state cannot stand in for work. Until every
//      variant has min_samples (and, with more than one variant, at least
//      kMinSamplesFor95 of statistics.h, so each speedup can have a
//      verdict) and the round has lasted min_time_ms and every variant's
//      relative standard error is under target_rse; or the time budget or
//      max_samples ends it first (the reason is reported);
//   5. one VariantResult per variant (statistics, throughput from the op's
//      work against the device's measured ceiling of the same conditions,
//      verification, clocks), then the Summary with each variant's speedup
//      over the first and its verdict (speedup.h). Clocks are watched during each
//      sample (Device::StartClockWatch); with TimingPlan.discard_throttled,
//      throttled samples are counted but left out of statistics and
//      speedups.
// The runner knows no op by name and no observer of the run: it writes
// events to its sink, and the front fans them out.
// Events go to the sink as they happen; samples in SampleBatch events, one
// at most every 250 ms (or 8192 samples) and one when sampling ends, before
// the results. Cancellation and the run's wall-clock bound
// (TimingPlan.deadline_ms, from the run's start) are checked between
// samples, between the steps above, and between chunks of the
// preparation's host-side work (Device::Prepare's go_on).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"
#include "server/run/run_plan.h"
#include "server/run/run_sink.h"
#include "server/worker/device.h"

namespace kbench::server::worker {

// The chance that a timed round other than the first and the last is
// checked, in a run with a learner's kernel, and the most such rounds a
// run checks (each costs a redraw, a reference and a comparison).
inline constexpr double kCheckedRoundShare = 1.0 / 8;
inline constexpr int kMaxRandomCheckedRounds = 6;
// The most a learner's kernel's printf output a result carries
// (VariantResult.kernel_output); kernel_output_bytes counts the rest.
inline constexpr size_t kMaxKernelOutputBytes = 64 * 1024;

// Runs a problem through steps 1-5 and emits Started, SampleBatches,
// VariantResults and the Summary. Returns OK once the Summary is emitted,
// CANCELLED when the sink was cancelled, DEADLINE_EXCEEDED past the run's
// wall-clock bound, or the device's error (nothing more is emitted then;
// the caller ends the RPC with it).
absl::Status RunJob(Device& device, const AdmittedRun& run, const std::string& run_id,
                    RunSink& sink);

}  // namespace kbench::server::worker
