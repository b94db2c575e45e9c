// The runner (server/runner.h) driving a real CUDA device: two variants are
// sampled interleaved, every result verifies against the reference, and the
// throughput is judged against the device's measured copy ceiling. Skipped
// where no CUDA device is present.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/backends/cuda/cuda_device.h"
#include "server/runner.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

TEST(CudaRunner, InterleavesVariantsAndVerifiesEveryResult) {
  if (const auto count = CudaDeviceCount(); !count.ok())
    GTEST_SKIP() << count.status().message();
  auto devices = OpenCudaDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  Device& device = *devices->front();

  VectorAddProblem problem;
  problem.n = (int64_t(1) << 22) + 3;
  problem.seed = 99;
  problem.variants = {"naive", "vectorized"};
  TimingPlan plan;
  plan.warmup_runs = 2;
  plan.min_samples = 10;
  plan.min_time_ms = 20;
  plan.time_budget_ms = 2000;
  plan.max_samples = 200;
  testing::RecordingSink sink;
  ASSERT_TRUE(RunVectorAddJob(device, problem, plan, "gpu-run", sink).ok());

  const std::vector<v1::RunEvent> events = sink.events();
  ASSERT_FALSE(events.empty());
  ASSERT_TRUE(events.front().has_started());
  EXPECT_EQ(events.front().started().backend(), "cuda");
  EXPECT_NE(events.front().started().timing_method().find("L2"),
            std::string::npos);

  std::vector<std::string> order;
  for (const v1::RunEvent& event : events)
    if (event.has_sample()) order.push_back(event.sample().variant());
  ASSERT_GE(order.size(), 20u);
  ASSERT_EQ(order.size() % 2, 0u);
  for (size_t i = 0; i < order.size(); ++i)
    EXPECT_EQ(order[i], i % 2 == 0 ? "naive" : "vectorized") << "sample " << i;

  int results = 0;
  for (const v1::RunEvent& event : events) {
    if (!event.has_variant_result()) continue;
    ++results;
    const v1::VariantResult& result = event.variant_result();
    EXPECT_TRUE(result.verification().passed()) << result.variant();
    EXPECT_EQ(result.verification().elements_checked(), uint64_t(problem.n));
    EXPECT_GT(result.throughput().fraction_of_ceiling(), 0.1)
        << result.variant();
    EXPECT_EQ(result.clocks().available(), device.ReadClock().available);
  }
  EXPECT_EQ(results, 2);
  ASSERT_TRUE(events.back().has_summary());
  EXPECT_TRUE(events.back().summary().all_verified());
  EXPECT_EQ(events.back().summary().speedups_size(), 1);
}

}  // namespace
}  // namespace kbench::server
