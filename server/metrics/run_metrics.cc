#include "server/metrics/run_metrics.h"

#include <string>
#include <utility>

#include "server/run/run_status.h"

namespace kbench::server::metrics {
namespace {

// Queue waits: a free device starts a run at once; a busy cohort queues for
// minutes.
const prometheus::Histogram::BucketBoundaries kQueueWaitBuckets = {0.01, 0.05, 0.1, 0.5, 1,   2,  5,
                                                                   10,   30,   60,  120, 300, 600};
// Run durations: a small vector add takes well under a second, an attention
// run with its time budget tens of seconds.
const prometheus::Histogram::BucketBoundaries kDurationBuckets = {0.1, 0.25, 0.5, 1,  2,   5,
                                                                  10,  20,   30,  60, 120, 300};

std::string OpLabel(const std::string& op) { return op.empty() ? "none" : op; }

double Seconds(int64_t from_unix_ms, int64_t to_unix_ms) {
  return static_cast<double>(to_unix_ms - from_unix_ms) / 1000.0;
}

}  // namespace

RunMetrics::RunMetrics(prometheus::Registry& registry, std::function<int64_t()> now_unix_ms)
    : now_unix_ms_(std::move(now_unix_ms)),
      runs_(prometheus::BuildCounter()
                .Name("kbench_runs_total")
                .Help("Runs that ended or were refused, by op and final status.")
                .Register(registry)),
      verification_failures_(
          prometheus::BuildCounter()
              .Name("kbench_verification_failures_total")
              .Help("Variant results whose output failed verification, by op and variant.")
              .Register(registry)),
      queue_wait_(prometheus::BuildHistogram()
                      .Name("kbench_run_queue_wait_seconds")
                      .Help("Time from a run's admission to a device taking it.")
                      .Register(registry)),
      duration_(prometheus::BuildHistogram()
                    .Name("kbench_run_duration_seconds")
                    .Help("Time from a device taking a run to the run's end.")
                    .Register(registry)),
      sm_clock_(prometheus::BuildGauge()
                    .Name("kbench_device_sm_clock_mhz")
                    .Help("Highest SM clock seen by the last variant result on the device.")
                    .Register(registry)) {}

void RunMetrics::OnAccepted(const RunAdmission& run) {
  std::lock_guard lock(mu_);
  Run& tracked = runs_in_flight_[run.run_id];
  tracked.op = OpLabel(run.op);
  tracked.accepted_unix_ms = run.unix_ms;
}

void RunMetrics::OnRefused(const RunAdmission& run, const absl::Status& /*why*/) {
  runs_.Add({{"op", OpLabel(run.op)}, {"status", RunStatusName(v1::RUN_STATUS_REFUSED)}})
      .Increment();
}

void RunMetrics::OnStarted(const std::string& run_id, const v1::DeviceInfo& device) {
  const int64_t unix_ms = now_unix_ms_();
  std::lock_guard lock(mu_);
  auto it = runs_in_flight_.find(run_id);
  if (it == runs_in_flight_.end()) return;
  Run& run = it->second;
  run.started_unix_ms = unix_ms;
  run.device_index = device.index();
  queue_wait_.Add({{"op", run.op}}, kQueueWaitBuckets)
      .Observe(Seconds(run.accepted_unix_ms, unix_ms));
}

void RunMetrics::OnEvent(const std::string& run_id, const v1::RunEvent& event) {
  std::lock_guard lock(mu_);
  auto it = runs_in_flight_.find(run_id);
  if (it == runs_in_flight_.end()) return;
  Run& run = it->second;
  if (event.has_summary()) run.all_verified = event.summary().all_verified();
  if (!event.has_variant_result()) return;
  const v1::VariantResult& result = event.variant_result();
  if (!result.verification().passed()) {
    verification_failures_.Add({{"op", run.op}, {"variant", result.variant()}}).Increment();
  }
  if (result.clocks().available()) {
    sm_clock_.Add({{"device", std::to_string(run.device_index)}})
        .Set(result.clocks().sm_clock_mhz_max());
  }
}

void RunMetrics::OnEnded(const std::string& run_id, const absl::Status& status) {
  const int64_t unix_ms = now_unix_ms_();
  std::lock_guard lock(mu_);
  auto node = runs_in_flight_.extract(run_id);
  if (node.empty()) return;
  const Run& run = node.mapped();
  runs_.Add({{"op", run.op}, {"status", RunStatusName(FinalStatus(status, run.all_verified))}})
      .Increment();
  if (run.started_unix_ms != 0) {
    duration_.Add({{"op", run.op}}, kDurationBuckets)
        .Observe(Seconds(run.started_unix_ms, unix_ms));
  }
}

}  // namespace kbench::server::metrics
