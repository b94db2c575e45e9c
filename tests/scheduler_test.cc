// The scheduler: one job at a time per device, oldest first, positions
// told as the queue moves, and a device that turns unhealthy takes no more
// jobs and reports it.
#include "server/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "server/runner.h"
#include "tests/fake_device.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

using testing::FakeDevice;
using testing::FakeVariant;

// Runs a short vector add on the fake device and records what happened.
class TestJob final : public Job {
 public:
  void Queued(uint32_t position, uint32_t) override { positions.push_back(position); }
  void Run(Device& device) override {
    VectorAddProblem problem;
    problem.n = 10;
    problem.variants = {device.Ops()[0].variants(0)};
    TimingPlan plan;
    plan.warmup_runs = 0;
    plan.min_samples = 1;
    plan.max_samples = 1;
    plan.min_time_ms = 0;
    testing::RecordingSink sink;
    status = RunVectorAddJob(device, problem, plan, "r", sink);
    done.set_value();
  }
  void Abandon(const absl::Status& why) override {
    status = why;
    done.set_value();
  }
  std::vector<uint32_t> positions;
  absl::Status status;
  std::promise<void> done;
};

std::vector<std::unique_ptr<Device>> One(std::unique_ptr<Device> device) {
  std::vector<std::unique_ptr<Device>> v;
  v.push_back(std::move(device));
  return v;
}

TEST(Scheduler, ADeviceThatBreaksTakesNoMoreRunsAndHealthTurnsOff) {
  FakeVariant broken;
  broken.breaks_device = true;
  std::atomic<int> health_calls{0};
  std::atomic<bool> last_health{true};
  Scheduler scheduler(One(std::make_unique<FakeDevice>(
                          std::vector<std::pair<std::string, FakeVariant>>{{"naive", broken}})),
                      8, [&](bool healthy) {
                        last_health = healthy;
                        ++health_calls;
                      });
  auto job = std::make_shared<TestJob>();
  auto done = job->done.get_future();
  ASSERT_TRUE(scheduler.Submit(job).ok());
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(job->status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(job->status.message().find("sticky"), std::string::npos);
  for (int i = 0; i < 500 && health_calls == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(health_calls, 1);
  EXPECT_FALSE(last_health);
  EXPECT_FALSE(scheduler.AnyHealthy());
  const absl::Status refused = scheduler.Submit(std::make_shared<TestJob>());
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(refused.message().find("no healthy device"), std::string::npos);
}

TEST(Scheduler, StopAbandonsWaitingJobsWithUnavailable) {
  Scheduler scheduler(One(std::make_unique<FakeDevice>(
                          std::vector<std::pair<std::string, FakeVariant>>{{"naive", {1.0}}},
                          /*sleep_ms=*/200)),
                      8, {});
  auto running = std::make_shared<TestJob>();
  auto waiting = std::make_shared<TestJob>();
  auto waiting_done = waiting->done.get_future();
  ASSERT_TRUE(scheduler.Submit(running).ok());
  for (int i = 0; i < 500 && scheduler.running() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(scheduler.running(), 1u);
  ASSERT_TRUE(scheduler.Submit(waiting).ok());
  EXPECT_EQ(waiting->positions.front(), 0u);
  EXPECT_EQ(scheduler.queued(), 1u);
  scheduler.Stop();
  ASSERT_EQ(waiting_done.wait_for(std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_EQ(waiting->status.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(running->status.ok()) << running->status;
  EXPECT_EQ(scheduler.Submit(std::make_shared<TestJob>()).code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace kbench::server
