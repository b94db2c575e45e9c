// The runner (server/worker/runner.h) driving a real CUDA device: two variants are
// sampled interleaved, every result verifies (the op's verifier: every
// element against the device reference, sampled elements against the double
// reference), the throughput is judged against the device's measured copy
// ceiling, and the clocks are watched during the samples. Skipped where no
// CUDA device is present.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "proto/ops/vector_add/vector_add_op.h"
#include "server/worker/backends/cuda/cuda_device.h"
#include "server/worker/runner.h"
#include "tests/cuda_device_test.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

using CudaRunner = CudaDeviceTest;

TEST_F(CudaRunner, InterleavesVariantsAndVerifiesEveryResult) {
  AdmittedRun run;
  run.problem = MakeVectorAddProblem((int64_t(1) << 22) + 3, 99);
  run.plan.warmup_runs = 2;
  run.plan.min_samples = 10;
  run.plan.min_time_ms = 20;
  run.plan.time_budget_ms = 2000;
  run.plan.max_samples = 200;
  testing::RecordingSink sink;
  const absl::Status status = worker::RunJob(*device_, run, "gpu-run", sink);
  ASSERT_TRUE(status.ok()) << status;

  const std::vector<v1::RunEvent> events = sink.events();
  ASSERT_FALSE(events.empty());
  ASSERT_TRUE(events.front().has_started());
  EXPECT_EQ(events.front().started().backend(), "cuda");
  EXPECT_EQ(events.front().started().seed(), 99u);
  EXPECT_NE(events.front().started().timing_method().find("L2"), std::string::npos);

  // Rounds of one sample each: the batches end with both variants at the
  // same count, every time carried (the order within rounds is
  // runner_test's).
  std::map<std::string, size_t> times, totals;
  for (const v1::RunEvent& event : events)
    for (const v1::VariantSamples& batch : event.samples().variants()) {
      times[batch.variant()] += size_t(batch.ms_size());
      totals[batch.variant()] = batch.total();
    }
  ASSERT_GE(totals["naive"], 10u);
  EXPECT_EQ(totals["naive"], totals["vectorized"]);
  EXPECT_EQ(times, totals);

  int results = 0;
  for (const v1::RunEvent& event : events) {
    if (!event.has_variant_result()) continue;
    ++results;
    const v1::VariantResult& result = event.variant_result();
    EXPECT_TRUE(result.verification().passed())
        << result.variant() << ": " << result.verification().failure();
    EXPECT_EQ(result.verification().elements_checked(), run.problem.request.vector_add().n());
    EXPECT_EQ(result.verification().non_finite(), 0u);
    EXPECT_GT(result.throughput().fraction_of_ceiling(), 0.1) << result.variant();
    // Clocks are read around every sample where NVML is usable.
    if (result.clocks().available()) {
      EXPECT_GT(result.clocks().sm_clock_mhz_min(), 0);
      EXPECT_LE(result.clocks().sm_clock_mhz_min(), result.clocks().sm_clock_mhz_max());
    }
  }
  EXPECT_EQ(results, 2);
  ASSERT_TRUE(events.back().has_summary());
  EXPECT_TRUE(events.back().summary().all_verified());
  EXPECT_EQ(events.back().summary().speedups_size(), 1);
  EXPECT_TRUE(device_->Healthy());
}

}  // namespace
}  // namespace kbench::server
