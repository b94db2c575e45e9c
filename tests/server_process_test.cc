// kbench-server as a process: graceful shutdown on SIGTERM lets a running
// run finish within the grace period, and cancels it once the grace period
// is over; either way the server exits 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "process_helper.h"

namespace kbench {
namespace {

using ::kbench::testing::ChildProcess;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr char kListening[] = "kbench-server listening on 127.0.0.1:";

// Starts a CPU server on a free port; returns its address, or "" on failure.
std::string StartServer(std::unique_ptr<ChildProcess>& server, const std::string& grace_s) {
  server = std::make_unique<ChildProcess>(std::vector<std::string>{
      KBENCH_SERVER_BIN, "--listen", "127.0.0.1:0", "--backend", "cpu",
      "--shutdown-grace", grace_s});
  if (!server->WaitForOutput(kListening, 60s) || !server->WaitForOutput("\n", 5s)) return "";
  const std::string& out = server->out();
  const size_t port_at = out.find(kListening) + sizeof(kListening) - 1;
  return "127.0.0.1:" + out.substr(port_at, out.find('\n', port_at) - port_at);
}

// A vector add whose sampling lasts about `ms` milliseconds: samples of a
// million elements take about a millisecond each on the CPU, so neither the
// RSE target nor max_samples can end it sooner.
std::unique_ptr<ChildProcess> StartRun(const std::string& address, const std::string& ms) {
  return std::make_unique<ChildProcess>(std::vector<std::string>{
      KBENCH_CLIENT_BIN, "--server", address, "vector-add", "--n", "1000000",
      "--min-time-ms", ms, "--budget-ms", ms, "--target-rse", "0.000001",
      "--max-samples", "100000"});
}

TEST(ServerProcess, SigtermLetsTheRunningRunFinishThenExitsZero) {
  std::unique_ptr<ChildProcess> server;
  const std::string address = StartServer(server, "30");
  ASSERT_FALSE(address.empty()) << server->err();
  auto run = StartRun(address, "1500");
  ASSERT_TRUE(run->WaitForOutput("started on", 30s, /*from_stderr=*/true)) << run->err();
  server->Signal(SIGTERM);
  EXPECT_EQ(run->Wait(60s), 0) << run->err();
  EXPECT_THAT(run->out(), HasSubstr("vectorized"));
  EXPECT_EQ(server->Wait(30s), 0) << server->err();
  EXPECT_THAT(server->err(), HasSubstr("draining"));
}

TEST(ServerProcess, RunsStillGoingWhenTheGraceEndsAreCancelled) {
  std::unique_ptr<ChildProcess> server;
  const std::string address = StartServer(server, "0.5");
  ASSERT_FALSE(address.empty()) << server->err();
  auto run = StartRun(address, "60000");
  ASSERT_TRUE(run->WaitForOutput("started on", 30s, /*from_stderr=*/true)) << run->err();
  const auto signalled = std::chrono::steady_clock::now();
  server->Signal(SIGTERM);
  const auto code = run->Wait(30s);
  ASSERT_TRUE(code.has_value()) << run->err() << server->err();
  EXPECT_EQ(*code, 3) << run->err();  // the server ended the call
  EXPECT_EQ(server->Wait(30s), 0) << server->err();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 20s) << server->err();
  EXPECT_THAT(server->err(), HasSubstr("cancelled"));
}

}  // namespace
}  // namespace kbench
