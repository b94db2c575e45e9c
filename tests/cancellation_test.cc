// kbench-server and its kbench-worker (CPU backend) as processes: a run
// cancelled by its client frees the device within milliseconds, and
// GetServerInfo says the device is idle only once the worker has stopped
// the run, also while the run was still making its inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "tests/server_under_test.h"

namespace kbench {
namespace {

using ::kbench::testing::IsSamples;
using ::kbench::testing::RunStream;
using ::kbench::testing::ServerUnderTest;
using ::kbench::testing::VectorAdd;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Milliseconds from `start` until GetServerInfo says `running` runs run
// (polled as fast as it answers); -1 after 30 s.
double MsUntilRunning(ServerUnderTest& server, uint32_t running, Clock::time_point start) {
  auto stub = server.Stub();
  while (MsSince(start) < 30000) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    v1::ServerInfo info;
    if (stub->GetServerInfo(&context, v1::GetServerInfoRequest(), &info).ok() &&
        info.running() == running)
      return MsSince(start);
  }
  return -1;
}

TEST(Cancellation, ACancelledRunFreesTheDeviceWithinMilliseconds) {
  // The goal (issue 37) is 20 ms from the cancel to a free device; the test
  // fails only past kBoundMs, which leaves room for a loaded machine but not
  // for a cancellation found by polling every 100 ms.
  constexpr double kGoalMs = 20, kBoundMs = 50;
  constexpr int kRuns = 5;
  ServerUnderTest server({"--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  std::vector<double> ms;
  for (int i = 0; i < kRuns; ++i) {
    // Sampling a small vector add for a minute, unless cancelled.
    RunStream run(*stub, VectorAdd(1000, 60000));
    ASSERT_TRUE(run.ReadUntil(IsSamples));
    const auto cancelled = Clock::now();
    run.Cancel();
    ms.push_back(MsUntilRunning(server, 0, cancelled));
    EXPECT_EQ(run.Finish().error_code(), grpc::StatusCode::CANCELLED);
    ASSERT_GE(ms.back(), 0) << "the device was not free within 30 s of the cancel";
  }
  std::sort(ms.begin(), ms.end());
  std::printf("cancel -> device free, %d runs: median %.1f ms, max %.1f ms (goal %.0f ms)\n", kRuns,
              ms[kRuns / 2], ms.back(), kGoalMs);
  EXPECT_LT(ms[kRuns / 2], kBoundMs) << "median of " << kRuns << " cancels";
  EXPECT_LT(ms[kRuns - 2], kBoundMs) << "second slowest of " << kRuns << " cancels";
}

TEST(Cancellation, ARunCancelledWhileMakingItsInputsStopsAndTheNextRunStartsAtOnce) {
  // Making 2 x 64 Mi inputs takes seconds on one core.
  constexpr uint64_t kLargeN = uint64_t(1) << 26;
  constexpr double kFreeBoundMs = 1000, kNextStartBoundMs = 1000;
  ServerUnderTest server({"--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();

  RunStream large(*stub, VectorAdd(kLargeN, 10));
  ASSERT_GE(MsUntilRunning(server, 1, Clock::now()), 0);
  const auto cancelled = Clock::now();
  large.Cancel();
  // Idle only once the worker has stopped making the inputs: the next run
  // then starts at once rather than after the rest of the preparation.
  const double free_ms = MsUntilRunning(server, 0, cancelled);
  const auto idle = Clock::now();
  RunStream next(*stub, VectorAdd(1000, 10));
  ASSERT_TRUE(next.ReadUntil([](const v1::RunEvent& e) { return e.has_started(); }))
      << next.Finish().error_message();
  const double next_ms = MsSince(idle);
  std::printf(
      "cancel during preparation -> device free %.1f ms; idle -> next run started "
      "%.1f ms\n",
      free_ms, next_ms);
  EXPECT_GE(free_ms, 0);
  EXPECT_LT(free_ms, kFreeBoundMs);
  EXPECT_LT(next_ms, kNextStartBoundMs);
  EXPECT_FALSE(large.started().has_value());
  EXPECT_EQ(large.Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(next.Finish().ok());
}

}  // namespace
}  // namespace kbench
