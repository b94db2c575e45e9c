// The Prometheus metrics after feeding RunMetrics, LiveGauges and LiveRuns
// the observer calls of a few runs: names, labels and values as the text
// format shows them.
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "server/live/live_runs.h"
#include "server/metrics/live_gauges.h"
#include "server/metrics/run_metrics.h"
#include "tests/run_records.h"

namespace kbench::server::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string MetricsText(prometheus::Registry& registry) {
  std::ostringstream text;
  prometheus::TextSerializer().Serialize(text, registry.Collect());
  return text.str();
}

RunAdmission Admission(const std::string& run_id, const std::string& op, int64_t unix_ms) {
  RunAdmission admission;
  admission.run_id = run_id;
  admission.principal.user = "ada";
  admission.op = op;
  admission.request.set_label("lab1");
  admission.unix_ms = unix_ms;
  return admission;
}

v1::RunEvent Result(const std::string& variant, bool passed, double sm_clock_mhz) {
  v1::RunEvent event;
  v1::VariantResult& result = *event.mutable_variant_result();
  result.set_variant(variant);
  result.mutable_verification()->set_passed(passed);
  result.mutable_clocks()->set_available(sm_clock_mhz > 0);
  result.mutable_clocks()->set_sm_clock_mhz_max(sm_clock_mhz);
  return event;
}

v1::RunEvent Summary(bool all_verified) {
  v1::RunEvent event;
  event.mutable_summary()->set_all_verified(all_verified);
  return event;
}

class RunMetricsTest : public ::testing::Test {
 protected:
  v1::DeviceInfo Device(uint32_t index) {
    v1::DeviceInfo device = ::kbench::testing::TestDevice();
    device.set_index(index);
    return device;
  }

  // A run accepted at `accepted_ms` that a device takes `wait_ms` later and
  // that ends `run_ms` after that, with `events` in between.
  void Run(const std::string& run_id, const std::string& op, int64_t accepted_ms, int64_t wait_ms,
           int64_t run_ms, const std::vector<v1::RunEvent>& events, const absl::Status& ended,
           uint32_t device = 0) {
    metrics_.OnAccepted(Admission(run_id, op, accepted_ms));
    now_ms_ = accepted_ms + wait_ms;
    metrics_.OnStarted(run_id, Device(device));
    for (const v1::RunEvent& event : events) metrics_.OnEvent(run_id, event);
    now_ms_ += run_ms;
    metrics_.OnEnded(run_id, ended);
  }

  int64_t now_ms_ = 0;
  prometheus::Registry registry_;
  RunMetrics metrics_{registry_, [this] { return now_ms_; }};
};

TEST_F(RunMetricsTest, CountsRunsByOpAndFinalStatus) {
  Run("r1", "attention", 0, 500, 2000, {Result("naive", true, 1980), Summary(true)},
      absl::OkStatus());
  Run("r2", "attention", 0, 500, 2000, {Result("naive", true, 1980), Summary(true)},
      absl::OkStatus());
  Run("r3", "attention", 0, 500, 2000,
      {Result("naive", true, 1980), Result("fused", false, 1965), Summary(false)},
      absl::OkStatus());
  Run("r4", "vector_add", 0, 100, 300, {}, absl::CancelledError("client went away"));
  Run("r5", "vector_add", 0, 100, 300, {}, absl::InternalError("worker died"));
  metrics_.OnRefused(Admission("r6", "attention", 0), absl::InvalidArgumentError("seq_len"));
  metrics_.OnRefused(Admission("r7", "", 0), absl::InvalidArgumentError("no problem"));

  const std::string text = MetricsText(registry_);
  EXPECT_THAT(text, HasSubstr("# TYPE kbench_runs_total counter"));
  EXPECT_THAT(text, HasSubstr("kbench_runs_total{op=\"attention\",status=\"ok\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("kbench_runs_total{op=\"attention\",status=\"failed_verification\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("kbench_runs_total{op=\"vector_add\",status=\"cancelled\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("kbench_runs_total{op=\"vector_add\",status=\"error\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("kbench_runs_total{op=\"attention\",status=\"refused\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("kbench_runs_total{op=\"none\",status=\"refused\"} 1\n"));
  EXPECT_THAT(
      text,
      HasSubstr("kbench_verification_failures_total{op=\"attention\",variant=\"fused\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("variant=\"naive\"")));
}

TEST_F(RunMetricsTest, ObservesQueueWaitAndDurationInSeconds) {
  Run("r1", "attention", 1000, 500, 2000, {Summary(true)}, absl::OkStatus());
  Run("r2", "attention", 9000, 1500, 4000, {Summary(true)}, absl::OkStatus());

  const std::string text = MetricsText(registry_);
  EXPECT_THAT(text, HasSubstr("# TYPE kbench_run_queue_wait_seconds histogram"));
  EXPECT_THAT(text, HasSubstr("kbench_run_queue_wait_seconds_count{op=\"attention\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("kbench_run_queue_wait_seconds_sum{op=\"attention\"} 2\n"));
  EXPECT_THAT(text,
              HasSubstr("kbench_run_queue_wait_seconds_bucket{op=\"attention\",le=\"1\"} 1\n"));
  EXPECT_THAT(text,
              HasSubstr("kbench_run_queue_wait_seconds_bucket{op=\"attention\",le=\"2\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("kbench_run_duration_seconds_count{op=\"attention\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("kbench_run_duration_seconds_sum{op=\"attention\"} 6\n"));
  EXPECT_THAT(text, HasSubstr("kbench_run_duration_seconds_bucket{op=\"attention\",le=\"2\"} 1\n"));
}

TEST_F(RunMetricsTest, SmClockIsTheLastResultsOnEachDevice) {
  Run("r1", "attention", 0, 0, 10, {Result("naive", true, 1755)}, absl::OkStatus(), 0);
  Run("r2", "attention", 0, 0, 10, {Result("naive", true, 1980)}, absl::OkStatus(), 0);
  Run("r3", "attention", 0, 0, 10, {Result("naive", true, 1410)}, absl::OkStatus(), 1);
  // A backend that reads no clocks leaves the gauge as it was.
  Run("r4", "attention", 0, 0, 10, {Result("naive", true, 0)}, absl::OkStatus(), 1);

  const std::string text = MetricsText(registry_);
  EXPECT_THAT(text, HasSubstr("kbench_device_sm_clock_mhz{device=\"0\"} 1980\n"));
  EXPECT_THAT(text, HasSubstr("kbench_device_sm_clock_mhz{device=\"1\"} 1410\n"));
}

TEST(LiveGauges, ShowTheServerAsTheLiveStateDescribesIt) {
  prometheus::Registry registry;
  LiveGauges gauges(registry);
  LiveState state;
  state.info.set_queued(3);
  state.info.set_running(1);
  v1::DeviceInfo& healthy = *state.info.add_devices();
  healthy.set_index(0);
  healthy.set_healthy(true);
  v1::DeviceInfo& broken = *state.info.add_devices();
  broken.set_index(1);
  broken.set_healthy(false);
  gauges.Update(state);

  const std::string text = MetricsText(registry);
  EXPECT_THAT(text, HasSubstr("# TYPE kbench_queue_depth gauge\nkbench_queue_depth 3\n"));
  EXPECT_THAT(text, HasSubstr("kbench_running_runs 1\n"));
  EXPECT_THAT(text, HasSubstr("kbench_device_healthy{device=\"0\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("kbench_device_healthy{device=\"1\"} 0\n"));
}

TEST(LiveRuns, HoldsWaitingAndRunningRunsUntilTheyEnd) {
  LiveRuns live([] { return int64_t{5000}; });
  live.OnAccepted(Admission("r1", "attention", 1000));
  live.OnAccepted(Admission("r2", "vector_add", 2000));
  live.OnAccepted(Admission("r3", "attention", 3000));
  v1::DeviceInfo device;
  device.set_index(1);
  live.OnStarted("r2", device);
  live.OnEnded("r1", absl::CancelledError("gone"));

  LiveState state;
  live.Fill(state);
  ASSERT_EQ(state.running.size(), 1u);
  EXPECT_EQ(state.running[0].run_id, "r2");
  EXPECT_EQ(state.running[0].device_index, 1u);
  EXPECT_EQ(state.running[0].started_unix_ms, 5000);
  EXPECT_EQ(state.running[0].label, "lab1");
  EXPECT_EQ(state.running[0].user, "ada");
  ASSERT_EQ(state.waiting.size(), 1u);
  EXPECT_EQ(state.waiting[0].run_id, "r3");
  EXPECT_EQ(state.waiting[0].accepted_unix_ms, 3000);
}

v1::RunEvent QueuedAt(uint32_t position) {
  v1::RunEvent event;
  event.mutable_queued()->set_position(position);
  return event;
}

TEST(LiveRuns, ListsWaitingRunsInTheOrderTheQueueWillStartThem) {
  // Fair share put r3 (another learner's) ahead of r1 and r2.
  LiveRuns live([] { return int64_t{5000}; });
  for (const char* id : {"r1", "r2", "r3"}) live.OnAccepted(Admission(id, "attention", 1000));
  live.OnEvent("r1", QueuedAt(0));
  live.OnEvent("r2", QueuedAt(1));
  live.OnEvent("r3", QueuedAt(2));
  live.OnEvent("r3", QueuedAt(0));
  live.OnEvent("r1", QueuedAt(1));
  live.OnEvent("r2", QueuedAt(2));
  LiveState state;
  live.Fill(state);
  ASSERT_EQ(state.waiting.size(), 3u);
  EXPECT_EQ(state.waiting[0].run_id, "r3");
  EXPECT_EQ(state.waiting[1].run_id, "r1");
  EXPECT_EQ(state.waiting[2].run_id, "r2");
}

}  // namespace
}  // namespace kbench::server::metrics
