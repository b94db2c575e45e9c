// kbench-server as a process: graceful shutdown on SIGTERM lets a running
// run finish within the grace period, and cancels it once the grace period
// is over; either way the server exits 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>

#include "server_under_test.h"

namespace kbench {
namespace {

using ::kbench::testing::IsSample;
using ::kbench::testing::RunStream;
using ::kbench::testing::ServerUnderTest;
using ::kbench::testing::VectorAdd;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST(ServerProcess, SigtermLetsTheRunningRunFinishThenExitsZero) {
  ServerUnderTest server({"--backend", "cpu", "--shutdown-grace", "30"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  RunStream run(*stub, VectorAdd(1000000, 1500));
  ASSERT_TRUE(run.ReadUntil(IsSample));
  server.process().Signal(SIGTERM);
  const grpc::Status status = run.Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(run.summary().has_value());
  EXPECT_TRUE(run.summary()->all_verified());
  EXPECT_EQ(server.process().Wait(30s), 0) << server.process().err();
  EXPECT_THAT(server.process().err(), HasSubstr("draining"));
}

TEST(ServerProcess, RunsStillGoingWhenTheGraceEndsAreCancelled) {
  ServerUnderTest server({"--backend", "cpu", "--shutdown-grace", "0.5"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  RunStream run(*stub, VectorAdd(1000000, 60000));
  ASSERT_TRUE(run.ReadUntil(IsSample));
  const auto signalled = std::chrono::steady_clock::now();
  server.process().Signal(SIGTERM);
  const grpc::Status status = run.Finish();
  EXPECT_FALSE(status.ok());  // the server ended the call
  EXPECT_EQ(server.process().Wait(30s), 0) << server.process().err();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 20s) << server.process().err();
  EXPECT_THAT(server.process().err(), HasSubstr("cancelled"));
}

}  // namespace
}  // namespace kbench
