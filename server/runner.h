// The harness every run goes through, on the device's worker thread:
//   1. prepare the problem on the device (inputs from the seed);
//   2. for each variant: poison the output, run once, verify against the
//      double reference (every element for vector add; for attention every
//      row of small problems, a seeded sample of rows of large ones);
//   3. warm-up runs of each variant, never timed;
//   4. timed samples in rounds, variants interleaved A B A B ..., until every
//      variant has min_samples and the round has lasted min_time_ms and every
//      variant's relative standard error is under target_rse; or the time
//      budget or max_samples ends it first (the reason is reported);
//   5. one VariantResult per variant (statistics, throughput against the
//      device's measured ceiling, verification, clocks), then the Summary
//      with each variant's speedup over the first, paired by round.
// Events go to the sink as they happen. Cancellation is checked between
// samples and between the steps above.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"
#include "server/device.h"

namespace kbench::server {

// Receives a run's events; implemented by the RPC's stream (and by tests).
class RunSink {
 public:
  virtual ~RunSink() = default;
  // Called on the worker thread, in event order. Must not block on the
  // client: queue the event and return.
  virtual void Emit(v1::RunEvent event) = 0;
  // True once the client cancelled or its deadline passed.
  virtual bool Cancelled() const = 0;
};

// Timing options with every default applied and every limit checked.
struct TimingPlan {
  uint32_t warmup_runs = 3;
  uint32_t min_samples = 10;
  double min_time_ms = 100;
  double target_rse = 0.005;
  double time_budget_ms = 2000;
  uint32_t max_samples = 1000;
  v1::TimingMode mode = v1::TIMING_MODE_COLD;
};

// Rows of attention output verified against the reference: all rows when
// the problem has at most this many, else a seeded sample of this many.
inline constexpr int64_t kMaxVerifiedAttentionRows = 256;

// Runs a problem through steps 1-5 and emits Started, Samples,
// VariantResults and the Summary. Returns OK once the Summary is emitted,
// CANCELLED when the sink was cancelled, or the device's error (nothing more
// is emitted then; the caller ends the RPC with it).
absl::Status RunVectorAddJob(Device& device, const VectorAddProblem& problem,
                             const TimingPlan& plan, const std::string& run_id,
                             RunSink& sink);
absl::Status RunAttentionJob(Device& device, const AttentionProblem& problem,
                             const TimingPlan& plan, const std::string& run_id,
                             RunSink& sink);

}  // namespace kbench::server
