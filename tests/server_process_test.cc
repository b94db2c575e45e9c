// kbench-server as a process: graceful shutdown on SIGTERM lets a running
// run finish within the grace period, and cancels it once the grace period
// is over; either way the server exits 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>

#include "tests/server_under_test.h"

namespace kbench {
namespace {

using ::kbench::testing::IsSamples;
using ::kbench::testing::RunStream;
using ::kbench::testing::ServerUnderTest;
using ::kbench::testing::VectorAdd;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

TEST(ServerProcess, SigtermLetsTheRunningRunFinishThenExitsZero) {
  ServerUnderTest server({"--backend", "cpu", "--shutdown-grace", "30"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  RunStream run(*stub, VectorAdd(1000000, 1500));
  ASSERT_TRUE(run.ReadUntil(IsSamples));
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
  ASSERT_TRUE(run.ReadUntil(IsSamples));
  const auto signalled = std::chrono::steady_clock::now();
  server.process().Signal(SIGTERM);
  const grpc::Status status = run.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_THAT(status.error_message(), HasSubstr("the server shut down before the run ended"));
  EXPECT_EQ(server.process().Wait(30s), 0) << server.process().err();
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 20s) << server.process().err();
  EXPECT_THAT(server.process().err(), HasSubstr("cancelled by the server"));
  EXPECT_THAT(server.process().err(), Not(HasSubstr("by the client")));
}

TEST(ServerProcess, WhileDrainingNewRunsGetUnavailableWithTheDrainMessage) {
  ServerUnderTest server({"--backend", "cpu", "--shutdown-grace", "30"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  RunStream running(*stub, VectorAdd(1000000, 3000));
  ASSERT_TRUE(running.ReadUntil(IsSamples));
  server.process().Signal(SIGTERM);
  ASSERT_TRUE(server.process().WaitForOutput("draining", 10s, /*from_stderr=*/true));
  // Each new client, on a connection of its own, is answered, not refused.
  for (int i = 0; i < 3; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("kbench.test.connection", i);
    auto fresh = v1::KernelBench::NewStub(
        grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args));
    RunStream refused(*fresh, VectorAdd(1000, 10));
    const grpc::Status status = refused.Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("server is draining: "));
  }
  EXPECT_TRUE(running.Finish().ok());  // the admitted run still ends
  EXPECT_EQ(server.process().Wait(30s), 0) << server.process().err();
}

}  // namespace
}  // namespace kbench
