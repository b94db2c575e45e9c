// The scheduler: one job at a time per device, oldest first, positions
// told as the queue moves, runs spread over several devices, and a device
// that fails for good takes no more jobs and reports it.
#include "server/front/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <thread>

#include "server/worker/local_executor.h"
#include "tests/fake_device.h"
#include "tests/fake_op.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

using testing::FakeDevice;
using testing::FakeOp;
using testing::FakeVariant;

const FakeOp& Op() {
  static const FakeOp op({"naive"});
  return op;
}

// Runs a short vector add on whichever device it gets and records which.
class TestJob final : public Job {
 public:
  explicit TestJob(std::string user = "") : user_(std::move(user)) {}
  QueueTicket Ticket() const override { return {user_, false, "fake", 0.001}; }
  void Queued(uint32_t position, uint32_t, double) override { positions.push_back(position); }
  bool Run(Executor& executor) override {
    TimingPlan plan;
    plan.warmup_runs = 0;
    plan.min_samples = 1;
    plan.max_samples = 1;
    plan.min_time_ms = 0;
    testing::RecordingSink sink;
    device_index = int(executor.Info().index());
    status = executor.Execute(Op().Run({"naive"}, 10, plan), "r", sink);
    done.set_value();
    return status.ok();
  }
  void Abandon(const absl::Status& why) override {
    status = why;
    done.set_value();
  }
  std::vector<uint32_t> positions;
  absl::Status status;
  int device_index = -1;
  std::promise<void> done;

 private:
  std::string user_;
};

std::vector<std::unique_ptr<Executor>> Devices(int count, FakeVariant variant,
                                               double sleep_ms = 0) {
  std::vector<std::unique_ptr<Executor>> v;
  for (int i = 0; i < count; ++i)
    v.push_back(std::make_unique<worker::LocalExecutor>(std::make_unique<FakeDevice>(
        std::vector<std::pair<std::string, FakeVariant>>{{"naive", variant}}, sleep_ms, 0,
        uint32_t(i))));
  return v;
}

TEST(Scheduler, ADeviceThatBreaksTakesNoMoreRunsAndHealthTurnsOff) {
  FakeVariant broken;
  broken.breaks_device = true;
  std::promise<bool> health;
  Scheduler scheduler(Devices(1, broken), 8, [&](bool serving) { health.set_value(serving); });
  auto job = std::make_shared<TestJob>();
  auto done = job->done.get_future();
  ASSERT_TRUE(scheduler.Submit(job).ok());
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(job->status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(job->status.message().find("sticky"), std::string::npos);
  auto serving = health.get_future();
  ASSERT_EQ(serving.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_FALSE(serving.get());
  EXPECT_FALSE(scheduler.AnyReady());
  const absl::Status refused = scheduler.Submit(std::make_shared<TestJob>());
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(refused.message().find("no device is ready"), std::string::npos);
}

TEST(Scheduler, StopAbandonsWaitingJobsWithUnavailable) {
  Scheduler scheduler(Devices(1, {1.0}, /*sleep_ms=*/200), 8, {});
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
  EXPECT_EQ(scheduler.Submit(std::make_shared<TestJob>()).code(), absl::StatusCode::kUnavailable);
}

TEST(Scheduler, RunsGoToEveryFreeDeviceAtOnce) {
  // Three devices, three jobs of 300 ms each: all three run at the same
  // time, one on each device.
  Scheduler scheduler(Devices(3, {1.0}, /*sleep_ms=*/100), 8, {});
  std::vector<std::shared_ptr<TestJob>> jobs;
  for (int i = 0; i < 3; ++i) {
    jobs.push_back(std::make_shared<TestJob>());
    ASSERT_TRUE(scheduler.Submit(jobs.back()).ok());
  }
  uint32_t most_running = 0;
  for (int i = 0; i < 1000 && most_running < 3; ++i) {
    most_running = std::max(most_running, scheduler.running());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(most_running, 3u);
  std::set<int> devices;
  for (auto& job : jobs) {
    ASSERT_EQ(job->done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_TRUE(job->status.ok()) << job->status;
    devices.insert(job->device_index);
  }
  EXPECT_EQ(devices, (std::set<int>{0, 1, 2}));
}

TEST(Scheduler, ABrokenDeviceLeavesTheOthersServing) {
  // Device 0 is healthy but slow, device 1 breaks on its first run: of two
  // jobs submitted together, one lands on each.
  std::vector<std::unique_ptr<Executor>> executors = Devices(1, {1.0}, /*sleep_ms=*/50);
  FakeVariant broken;
  broken.breaks_device = true;
  executors.push_back(std::make_unique<worker::LocalExecutor>(std::make_unique<FakeDevice>(
      std::vector<std::pair<std::string, FakeVariant>>{{"naive", broken}}, 0, 0, 1)));
  Scheduler scheduler(std::move(executors), 8, {});
  auto first = std::make_shared<TestJob>();
  auto second = std::make_shared<TestJob>();
  ASSERT_TRUE(scheduler.Submit(first).ok());
  ASSERT_TRUE(scheduler.Submit(second).ok());
  first->done.get_future().wait();
  second->done.get_future().wait();
  EXPECT_NE(first->device_index, second->device_index);
  ASSERT_TRUE(scheduler.executors()[1]->Failed());
  EXPECT_TRUE(scheduler.AnyReady());
  for (int i = 0; i < 3; ++i) {
    auto job = std::make_shared<TestJob>();
    ASSERT_TRUE(scheduler.Submit(job).ok());
    job->done.get_future().wait();
    EXPECT_TRUE(job->status.ok()) << job->status;
    EXPECT_EQ(job->device_index, 0);
  }
}

}  // namespace
}  // namespace kbench::server
