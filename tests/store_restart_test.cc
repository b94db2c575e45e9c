// The results store across a crash of the server: runs, then kill -9 of
// kbench-server while a run is in flight, then a new server on the same
// store. Everything stored before the kill is there, and the run that was
// in flight is interrupted. And two servers on one store: the run of the
// one killed is interrupted by the other once its host's lease lapses.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "kbench/v1/history.grpc.pb.h"
#include "tests/server_under_test.h"

namespace kbench::testing {
namespace {

v1::ListRunsResponse ListRuns(ServerUnderTest& server) {
  auto stub = v1::RunHistory::NewStub(server.channel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 10s);
  v1::ListRunsRequest request;
  request.set_page_size(50);
  v1::ListRunsResponse response;
  const grpc::Status status = stub->ListRuns(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

TEST(StoreRestart, RunsSurviveAKillAndTheRunInFlightIsInterrupted) {
  char pattern[] = "/tmp/kbench-store-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string store = dir + "/runs.sqlite";
  std::string in_flight;
  {
    // --auth off: --auth auto does not create a --store that is not there.
    ServerUnderTest server({"--backend", "cpu", "--store", store, "--auth", "off"});
    ASSERT_FALSE(server.address().empty()) << server.process().err();
    auto stub = server.Stub();
    for (const char* label : {"lab 1", "lab 2"}) {
      v1::RunRequest request = VectorAdd(4096, 20);
      request.set_label(label);
      RunStream run(*stub, request);
      ASSERT_TRUE(run.Finish().ok());
      ASSERT_TRUE(run.summary().has_value());
    }
    v1::RunRequest long_run = VectorAdd(4096, 60000);
    long_run.set_label("in flight");
    RunStream run(*stub, long_run);
    ASSERT_TRUE(run.ReadUntil(IsSamples));
    in_flight = run.started()->run_id();
    server.process().Signal(SIGKILL);
    ASSERT_TRUE(server.process().Wait(10s).has_value());
  }
  ServerUnderTest restarted({"--backend", "cpu", "--store", store});
  ASSERT_FALSE(restarted.address().empty()) << restarted.process().err();
  const v1::ListRunsResponse runs = ListRuns(restarted);
  ASSERT_EQ(runs.runs_size(), 3);
  int ok = 0;
  for (const v1::RunRecord& record : runs.runs()) {
    if (record.run_id() == in_flight) {
      EXPECT_EQ(record.status(), v1::RUN_STATUS_INTERRUPTED);
      EXPECT_EQ(record.label(), "in flight");
    } else {
      EXPECT_EQ(record.status(), v1::RUN_STATUS_OK) << record.run_id();
      EXPECT_EQ(record.results_size(), 2);
      ++ok;
    }
  }
  EXPECT_EQ(ok, 2);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

// Two servers (two hosts) share one store; one is killed mid-run and does
// not come back. Its run stays RUNNING while its lease holds, and the other
// server marks it interrupted once the lease has lapsed (within about 1.25
// leases of the last renewal).
TEST(StoreRestart, AKilledHostsRunIsInterruptedByAnotherServerOnceItsLeaseLapses) {
  char pattern[] = "/tmp/kbench-store-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string store = dir + "/runs.sqlite";
  constexpr int kLeaseSeconds = 5;
  const auto host = [&](const char* id) {
    return std::vector<std::string>{"--backend",
                                    "cpu",
                                    "--store",
                                    store,
                                    "--auth",
                                    "off",
                                    "--host-id",
                                    id,
                                    "--host-lease-seconds",
                                    std::to_string(kLeaseSeconds)};
  };
  ServerUnderTest a(host("host-a"));
  ASSERT_FALSE(a.address().empty()) << a.process().err();
  ServerUnderTest b(host("host-b"));
  ASSERT_FALSE(b.address().empty()) << b.process().err();
  auto stub = a.Stub();
  v1::RunRequest long_run = VectorAdd(4096, 60000);
  long_run.set_label("on host a");
  RunStream run(*stub, long_run);
  ASSERT_TRUE(run.ReadUntil(IsSamples)) << a.process().err();
  ASSERT_TRUE(run.started().has_value());
  const std::string run_id = run.started()->run_id();
  a.process().Signal(SIGKILL);
  ASSERT_TRUE(a.process().Wait(10s).has_value());
  const auto killed = std::chrono::steady_clock::now();

  const auto status_on_b = [&]() -> v1::RunRecord {
    const v1::ListRunsResponse runs = ListRuns(b);
    for (const v1::RunRecord& record : runs.runs())
      if (record.run_id() == run_id) return record;
    ADD_FAILURE() << run_id << " is not in the store";
    return v1::RunRecord();
  };
  // Within the lease, the run is still the dead host's to end.
  EXPECT_EQ(status_on_b().status(), v1::RUN_STATUS_RUNNING);
  v1::RunRecord record;
  while (std::chrono::steady_clock::now() - killed < 30s) {
    record = status_on_b();
    if (record.status() != v1::RUN_STATUS_RUNNING) break;
    std::this_thread::sleep_for(200ms);
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  EXPECT_EQ(record.status(), v1::RUN_STATUS_INTERRUPTED);
  EXPECT_EQ(record.error(), "its server stopped renewing its lease while the run was running");
  // Renewed at most a quarter lease before the kill; swept by b every
  // quarter lease once it lapsed.
  EXPECT_GE(waited, kLeaseSeconds * 0.75 - 0.5) << "interrupted before the lease lapsed";
  EXPECT_LE(waited, kLeaseSeconds * 1.25 + 3) << "interrupted long after the lease lapsed";
  std::printf(
      "[ lease    ] host-a's run interrupted by host-b %.1f s after the kill (lease %d s)\n",
      waited, kLeaseSeconds);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace
}  // namespace kbench::testing
