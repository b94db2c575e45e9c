// The results store across a crash of the server: runs, then kill -9 of
// kbench-server while a run is in flight, then a new server on the same
// store. Everything stored before the kill is there, and the run that was
// in flight is interrupted.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace kbench::testing
