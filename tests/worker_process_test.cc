// kbench-server and its kbench-worker processes (CPU backend), end to end
// through gRPC: a worker that is killed, aborts, exits or hangs mid-run ends
// that run with INTERNAL naming what happened and is restarted, health goes
// NOT_SERVING then SERVING, and the next run succeeds; several devices run
// runs at once; no worker outlives the server, whether it drains on SIGTERM
// or is killed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/server_under_test.h"

namespace kbench {
namespace {

using ::kbench::testing::HealthWatcher;
using ::kbench::testing::IsSamples;
using ::kbench::testing::NoProcessLeftMentioning;
using ::kbench::testing::RunStream;
using ::kbench::testing::ServerUnderTest;
using ::kbench::testing::VectorAdd;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

using Health = grpc::health::v1::HealthCheckResponse;

// A short run on a ready server ends OK with every variant verified.
void ExpectARunSucceeds(ServerUnderTest& server) {
  auto stub = server.Stub();
  RunStream run(*stub, VectorAdd(100000, 50));
  const grpc::Status status = run.Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(run.summary().has_value());
  EXPECT_TRUE(run.summary()->all_verified());
}

TEST(WorkerProcess, KillNineMidRunEndsTheRunWithInternalAndTheWorkerIsRestarted) {
  ServerUnderTest server({"--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  HealthWatcher health(server.channel());
  const v1::DeviceInfo before = server.Info().devices(0);
  ASSERT_GT(before.worker_pid(), 0u);

  auto stub = server.Stub();
  RunStream run(*stub, VectorAdd(1000000, 60000));
  ASSERT_TRUE(run.ReadUntil(IsSamples));
  const size_t seen = health.seen();
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(pid_t(before.worker_pid()), SIGKILL), 0);
  const grpc::Status status = run.Finish();
  EXPECT_LT(std::chrono::steady_clock::now() - killed, 2s);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_THAT(status.error_message(),
              HasSubstr("worker for device 0 exited on signal 9 (SIGKILL) during run run-"));
  EXPECT_THAT(status.error_message(), HasSubstr("; restarted"));

  ASSERT_TRUE(health.WaitForSequence(seen, Health::NOT_SERVING, Health::SERVING, 60s))
      << server.process().err();
  ExpectARunSucceeds(server);
  const v1::DeviceInfo after = server.Info().devices(0);
  EXPECT_EQ(after.worker_restarts(), 1u);
  EXPECT_NE(after.worker_pid(), before.worker_pid());
  EXPECT_TRUE(after.healthy());
}

struct FaultCase {
  v1::Fault fault;
  std::string what;  // what the run's error says happened
  std::string then;  // and what the server did about it
};

class FaultInjection : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultInjection, EndsTheRunWithInternalAndTheNextRunSucceeds) {
  ServerUnderTest server(
      {"--backend", "cpu", "--enable-fault-injection", "--max-stall-seconds", "2"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  HealthWatcher health(server.channel());

  auto stub = server.Stub();
  v1::RunRequest request = VectorAdd(100000, 60000);
  request.set_fault(GetParam().fault);
  RunStream run(*stub, request);
  const grpc::Status status = run.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(GetParam().what));
  EXPECT_THAT(status.error_message(), HasSubstr(GetParam().then));
  // Only a run with learners' kernels is told its kernel was stopped.
  EXPECT_THAT(status.error_message(), ::testing::Not(HasSubstr("learner's kernel")));
  EXPECT_TRUE(run.started().has_value());

  ASSERT_TRUE(health.WaitForSequence(0, Health::NOT_SERVING, Health::SERVING, 60s))
      << server.process().err();
  ExpectARunSucceeds(server);
  EXPECT_EQ(server.Info().devices(0).worker_restarts(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FaultInjection,
    ::testing::Values(
        FaultCase{v1::FAULT_WORKER_ABORT,
                  "worker for device 0 exited on signal 6 (SIGABRT) during run", "; restarted"},
        FaultCase{v1::FAULT_WORKER_EXIT, "worker for device 0 exited with status 7 during run",
                  "; restarted"},
        FaultCase{v1::FAULT_WORKER_HANG, "worker for device 0 made no progress for 2 s during run",
                  "; killed and restarted"}),
    [](const auto& info) { return v1::Fault_Name(info.param.fault); });

TEST(WorkerProcess, FaultRequestsAreRefusedWithoutTheFlag) {
  ServerUnderTest server({"--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  v1::RunRequest request = VectorAdd(1000, 10);
  request.set_fault(v1::FAULT_WORKER_ABORT);
  RunStream run(*stub, request);
  const grpc::Status status = run.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("--enable-fault-injection"));
  EXPECT_EQ(server.Info().devices(0).worker_restarts(), 0u);
}

TEST(WorkerProcess, TwoCpuDevicesRunTwoRunsAtOnce) {
  ServerUnderTest server({"--backend", "cpu", "--devices", "0,1"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  const v1::ServerInfo info = server.Info();
  ASSERT_EQ(info.devices_size(), 2);
  EXPECT_EQ(info.devices(0).index(), 0u);
  EXPECT_EQ(info.devices(1).index(), 1u);
  EXPECT_NE(info.devices(0).worker_pid(), info.devices(1).worker_pid());

  // Two runs submitted together go to the two free devices, and run there
  // at the same time: the second starts before the first ends.
  auto stub = server.Stub();
  RunStream first(*stub, VectorAdd(100000, 1500));
  RunStream second(*stub, VectorAdd(100000, 1500));
  ASSERT_TRUE(first.ReadUntil([](const auto& e) { return e.has_started(); }));
  ASSERT_TRUE(second.ReadUntil([](const auto& e) { return e.has_started(); }));
  ASSERT_TRUE(first.Finish().ok());
  ASSERT_TRUE(second.Finish().ok());
  EXPECT_NE(first.started()->device_index(), second.started()->device_index());
  EXPECT_TRUE(first.summary()->all_verified());
  EXPECT_TRUE(second.summary()->all_verified());
}

// --health-listen: a plain-text port that tells the same health as the gRPC
// port (NOT_SERVING while the worker restarts, then SERVING) and serves
// nothing else.
TEST(WorkerProcess, TheHealthPortFollowsTheWorkerAndServesOnlyHealth) {
  ServerUnderTest server({"--backend", "cpu", "--health-listen", "127.0.0.1:0"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  constexpr char kHealthOn[] = "kbench-server health on 127.0.0.1:";
  const std::string& out = server.process().out();
  const size_t at = out.find(kHealthOn);
  ASSERT_NE(at, std::string::npos) << out;
  const size_t port_at = at + sizeof(kHealthOn) - 1;
  const std::string health_address =
      "127.0.0.1:" + out.substr(port_at, out.find('\n', port_at) - port_at);
  ASSERT_NE(health_address, server.address());
  auto health_channel = grpc::CreateChannel(health_address, grpc::InsecureChannelCredentials());
  HealthWatcher health(health_channel);

  {  // Only health: the run service is not there.
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    v1::ServerInfo info;
    const grpc::Status status = v1::KernelBench::NewStub(health_channel)
                                    ->GetServerInfo(&context, v1::GetServerInfoRequest(), &info);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << status.error_message();
  }

  const v1::DeviceInfo before = server.Info().devices(0);
  ASSERT_GT(before.worker_pid(), 0u);
  ASSERT_TRUE(health.WaitForSequence(0, Health::SERVING, Health::SERVING, 30s));
  const size_t seen = health.seen();
  ASSERT_EQ(kill(pid_t(before.worker_pid()), SIGKILL), 0);
  EXPECT_TRUE(health.WaitForSequence(seen, Health::NOT_SERVING, Health::SERVING, 60s))
      << server.process().err();
}

TEST(WorkerProcess, SigtermOfTheServerLeavesNoWorker) {
  ServerUnderTest server({"--backend", "cpu", "--devices", "0,1"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  const v1::ServerInfo info = server.Info();
  ASSERT_EQ(info.devices_size(), 2);
  ASSERT_EQ(testing::LiveProcessesMentioning(server.tmpdir()).size(), 2u);
  server.process().Signal(SIGTERM);
  EXPECT_EQ(server.process().Wait(60s), 0) << server.process().err();
  // The server reaped its workers before it exited: none is left, not even
  // as a zombie for someone else to reap.
  EXPECT_TRUE(testing::LiveProcessesMentioning(server.tmpdir()).empty());
  for (const v1::DeviceInfo& device : info.devices())
    EXPECT_NE(kill(pid_t(device.worker_pid()), 0), 0) << device.worker_pid();
  EXPECT_THAT(server.process().err(), HasSubstr("stopped: exited with status 0"));
}

TEST(WorkerProcess, SigkillOfTheServerKillsItsWorkers) {
  ServerUnderTest server({"--backend", "cpu", "--devices", "0,1"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  ASSERT_EQ(testing::LiveProcessesMentioning(server.tmpdir()).size(), 2u);
  server.process().Signal(SIGKILL);
  server.process().Wait(30s);
  EXPECT_TRUE(NoProcessLeftMentioning(server.tmpdir(), 10s));
}

}  // namespace
}  // namespace kbench
