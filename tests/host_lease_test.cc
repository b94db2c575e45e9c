// HostLease over a SQLite store shared by "hosts" (stores opened with
// their ids): the lease is renewed at once and then every quarter of it,
// and each renewal ends the runs of hosts whose lease lapsed.
#include "server/front/host_lease.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "server/store/run_store.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench::server {
namespace {

using ::kbench::testing::AdmittedRun;
using ::kbench::testing::TestDevice;
using ::kbench::testing::TestStarted;

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<store::RunStore> Open(const std::string& path, const std::string& host) {
  absl::StatusOr<std::unique_ptr<store::RunStore>> store = store::OpenStore(path, host);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

v1::RunStatus StatusOf(store::RunStore& store, const std::string& run_id) {
  absl::StatusOr<v1::RunRecord> run = store.Get(run_id);
  return run.ok() ? run->status() : v1::RUN_STATUS_UNSPECIFIED;
}

TEST(HostLease, EndsTheRunsOfAHostWhoseLeaseLapsedAtOnceAndLaterOnes) {
  ::kbench::testing::TempDir dir;
  const std::string path = dir.path() + "/runs.sqlite";
  std::unique_ptr<store::RunStore> dead = Open(path, "dead-host");
  std::unique_ptr<store::RunStore> dying = Open(path, "dying-host");
  std::unique_ptr<store::RunStore> live = Open(path, "live-host");
  ASSERT_TRUE(dead && dying && live);
  ASSERT_TRUE(dead->Accept(AdmittedRun("dead-run", 1000)).ok());
  ASSERT_TRUE(dead->Start("dead-run", TestDevice(), TestStarted("dead-run"), 1001).ok());
  ASSERT_TRUE(dying->Accept(AdmittedRun("dying-run", 1002)).ok());
  ASSERT_TRUE(live->Accept(AdmittedRun("live-run", 1003)).ok());
  const int64_t now = NowUnixMs();
  ASSERT_TRUE(dead->Heartbeat(now - 10'000).ok());
  ASSERT_TRUE(dying->Heartbeat(now).ok());

  // A 1 s lease: the dead host's lapsed long ago, the dying host's soon.
  HostLease lease(*live, std::chrono::milliseconds(1000));
  EXPECT_EQ(StatusOf(*live, "dead-run"), v1::RUN_STATUS_INTERRUPTED);
  EXPECT_EQ(StatusOf(*live, "dying-run"), v1::RUN_STATUS_QUEUED);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (StatusOf(*live, "dying-run") == v1::RUN_STATUS_QUEUED &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(StatusOf(*live, "dying-run"), v1::RUN_STATUS_INTERRUPTED);
  // Its own runs are never swept: the live host renews its lease.
  EXPECT_EQ(StatusOf(*live, "live-run"), v1::RUN_STATUS_QUEUED);
}

}  // namespace
}  // namespace kbench::server
