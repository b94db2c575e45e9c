// The shared run queue (server/store/queue_store.h) on both engines: the
// cluster's fair order, claims that never overlap, the events and end a
// claiming host writes as the admitting host reads them, withdrawal, and
// what becomes of a host's rows when its lease lapses.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/store/queue_store.h"
#include "server/store/run_store.h"
#include "tests/postgres_fixture.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench::server::store {
namespace {

using Engine = ::kbench::testing::StoreEngine;
using std::chrono_literals::operator""ms;

constexpr std::chrono::milliseconds kWindow{3'600'000};
constexpr int64_t kNow = 1'800'000'000'000;

QueueEntry Entry(const std::string& run_id, const std::string& user, bool priority = false) {
  QueueEntry entry;
  entry.run_id = run_id;
  entry.user = user;
  entry.priority = priority;
  entry.op = "vector_add";
  entry.budget_ms = 1000;
  entry.request.mutable_vector_add()->set_n(4096 + run_id.size());
  return entry;
}

// An event told apart by its number.
v1::RunEvent Numbered(uint32_t number) {
  v1::RunEvent event;
  event.mutable_queued()->set_position(number);
  return event;
}

class QueueStoreTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> spec = ::kbench::testing::FreshStoreSpec(GetParam(), dir_.path());
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *spec;
    // Opening a run store migrates.
    absl::StatusOr<std::unique_ptr<RunStore>> runs = OpenStore(spec_, "host-a");
    ASSERT_TRUE(runs.ok()) << runs.status();
    runs_ = *std::move(runs);
    a_ = OpenQueue("host-a");
    b_ = OpenQueue("host-b");
  }

  std::unique_ptr<QueueStore> OpenQueue(const std::string& host,
                                        const std::string& backend = "cpu") {
    absl::StatusOr<std::unique_ptr<QueueStore>> queue =
        QueueStore::Open(spec_, host, backend, kWindow);
    EXPECT_TRUE(queue.ok()) << queue.status();
    return queue.ok() ? *std::move(queue) : nullptr;
  }

  // Claims from `queue` until none waits; the run ids in claim order.
  static std::vector<std::string> ClaimAll(QueueStore& queue, int64_t unix_ms) {
    std::vector<std::string> order;
    while (true) {
      absl::StatusOr<std::optional<QueueEntry>> claimed = queue.Claim(unix_ms);
      EXPECT_TRUE(claimed.ok()) << claimed.status();
      if (!claimed.ok() || !claimed->has_value()) return order;
      order.push_back((*claimed)->run_id);
    }
  }

  ::kbench::testing::TempDir dir_;
  std::string spec_;
  std::unique_ptr<RunStore> runs_;
  std::unique_ptr<QueueStore> a_;
  std::unique_ptr<QueueStore> b_;
};

// One learner queues four runs, then three others one each: the others
// take turns with the flooder, who gets one run in before them only
// because theirs came first.
TEST_P(QueueStoreTest, EqualUsersTakeTurnsWhateverTheyQueued) {
  for (const char* id : {"f1", "f2", "f3", "f4"})
    ASSERT_TRUE(a_->Enqueue(Entry(id, "flood"), kNow).ok());
  ASSERT_TRUE(b_->Enqueue(Entry("x1", "x"), kNow + 1).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("y1", "y"), kNow + 2).ok());
  ASSERT_TRUE(b_->Enqueue(Entry("z1", "z"), kNow + 3).ok());
  EXPECT_EQ(ClaimAll(*a_, kNow + 10),
            (std::vector<std::string>{"f1", "x1", "y1", "z1", "f2", "f3", "f4"}));
}

TEST_P(QueueStoreTest, InstructorsGoFirstAndDeviceTimeInTheWindowCounts) {
  // x used 5 s of device time an hour ago less a minute; y's run of two
  // hours ago is outside the window.
  for (const auto& [id, user, at] : std::vector<std::tuple<std::string, std::string, int64_t>>{
           {"x-old", "x", kNow - 3'540'000 - 5'000}, {"y-old", "y", kNow - 7'200'000 - 5'000}}) {
    ASSERT_TRUE(a_->Enqueue(Entry(id, user), at).ok());
    ASSERT_EQ(ClaimAll(*a_, at), std::vector<std::string>{id});
    ASSERT_TRUE(a_->Started(id, v1::DeviceInfo(), at).ok());
    ASSERT_TRUE(a_->End(id, 0, {}, absl::OkStatus(), at + 5'000).ok());
  }
  ASSERT_TRUE(a_->Enqueue(Entry("x1", "x"), kNow).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("y1", "y"), kNow + 1).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("teacher", "t", /*priority=*/true), kNow + 2).ok());
  EXPECT_EQ(ClaimAll(*b_, kNow + 10), (std::vector<std::string>{"teacher", "y1", "x1"}));
}

// A run admitted by a CUDA server waits for a CUDA device: a CPU server
// claims only the runs of CPU servers, and the places count the runs of the
// same backend.
TEST_P(QueueStoreTest, AServerClaimsOnlyTheRunsOfItsBackend) {
  std::unique_ptr<QueueStore> gpu = OpenQueue("gpu-host", "cuda");
  ASSERT_NE(gpu, nullptr);
  ASSERT_TRUE(gpu->Enqueue(Entry("on-gpu", "u"), kNow).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("on-cpu", "v"), kNow + 1).ok());
  EXPECT_EQ(ClaimAll(*b_, kNow + 2), std::vector<std::string>{"on-cpu"});
  absl::StatusOr<QueueView> view = gpu->Follow(kNow + 3);
  ASSERT_TRUE(view.ok()) << view.status();
  ASSERT_EQ(view->runs.size(), 1u);
  EXPECT_EQ(view->runs[0].position, 0);
  EXPECT_EQ(ClaimAll(*gpu, kNow + 4), std::vector<std::string>{"on-gpu"});
}

// Two hosts claim from one queue at once: every run is claimed once.
TEST_P(QueueStoreTest, TwoHostsClaimingAtOnceNeverClaimOneRunTwice) {
  constexpr int kRuns = 60;
  for (int i = 0; i < kRuns; ++i)
    ASSERT_TRUE(a_->Enqueue(Entry(absl::StrCat("r", i), absl::StrCat("u", i % 7)), kNow + i).ok());
  std::vector<std::string> by_a;
  std::vector<std::string> by_b;
  std::thread claiming_a([&] { by_a = ClaimAll(*a_, kNow + 100); });
  std::thread claiming_b([&] { by_b = ClaimAll(*b_, kNow + 100); });
  claiming_a.join();
  claiming_b.join();
  std::multiset<std::string> all(by_a.begin(), by_a.end());
  all.insert(by_b.begin(), by_b.end());
  EXPECT_EQ(all.size(), size_t{kRuns});
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), size_t{kRuns});
}

// Host b runs what host a admitted; a reads its place, then its events in
// order, once, then its end, once.
TEST_P(QueueStoreTest, TheAdmittingHostFollowsARunAnotherHostExecutes) {
  ASSERT_TRUE(a_->Enqueue(Entry("first", "u"), kNow).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("second", "v"), kNow + 1).ok());
  absl::StatusOr<QueueView> view = a_->Follow(kNow + 2);
  ASSERT_TRUE(view.ok()) << view.status();
  ASSERT_EQ(view->runs.size(), 2u);
  for (const FollowedRun& run : view->runs) {
    EXPECT_EQ(run.position, run.run_id == "first" ? 0 : 1) << run.run_id;
    EXPECT_EQ(run.budget_ahead_ms, run.run_id == "first" ? 0 : 1000) << run.run_id;
  }
  ASSERT_TRUE(b_->SetDevices(0).ok());
  absl::StatusOr<std::optional<QueueEntry>> claimed = b_->Claim(kNow + 3);
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  EXPECT_EQ((*claimed)->run_id, "first");
  EXPECT_EQ((*claimed)->request.vector_add().n(), Entry("first", "u").request.vector_add().n());
  v1::DeviceInfo device;
  device.set_name("device of b");
  ASSERT_TRUE(b_->Started("first", device, kNow + 4).ok());
  ASSERT_TRUE(b_->Append("first", 0, {Numbered(1), Numbered(2)}).ok());

  view = a_->Follow(kNow + 5);
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->load.running, 1);
  const auto find = [&](const std::string& run_id) {
    return *std::find_if(view->runs.begin(), view->runs.end(),
                         [&](const FollowedRun& run) { return run.run_id == run_id; });
  };
  FollowedRun first = find("first");
  EXPECT_EQ(first.position, -1);
  EXPECT_TRUE(first.started);
  EXPECT_EQ(first.device.name(), "device of b");
  ASSERT_EQ(first.events.size(), 2u);
  EXPECT_EQ(first.events[1].queued().position(), 2u);
  EXPECT_FALSE(first.ended);
  EXPECT_EQ(find("second").position, 0);

  ASSERT_TRUE(b_->End("first", 2, {Numbered(3)}, absl::DataLossError("bad"), kNow + 6).ok());
  view = a_->Follow(kNow + 7);
  ASSERT_TRUE(view.ok()) << view.status();
  first = find("first");
  ASSERT_EQ(first.events.size(), 1u) << "events are read once";
  EXPECT_EQ(first.events[0].queued().position(), 3u);
  EXPECT_TRUE(first.ended);
  EXPECT_EQ(first.end, absl::DataLossError("bad"));
  view = a_->Follow(kNow + 8);
  ASSERT_TRUE(view.ok());
  ASSERT_EQ(view->runs.size(), 1u) << "an end is read once";
  EXPECT_EQ(view->runs[0].run_id, "second");
}

// What ServerInfo reports on a server of a shared queue: the runs of every
// host, waiting and running, and the ready devices of the hosts with a lease.
TEST_P(QueueStoreTest, TheClusterLoadCountsEveryHostsRunsAndDevices) {
  const auto load = [](QueueStore& queue) {
    absl::StatusOr<ClusterLoad> read = queue.Load();
    EXPECT_TRUE(read.ok()) << read.status();
    return read.ok() ? std::tuple(read->running, read->waiting, read->devices)
                     : std::tuple(int64_t{-1}, int64_t{-1}, int64_t{-1});
  };
  EXPECT_EQ(load(*b_), std::tuple(0, 0, 0));
  ASSERT_TRUE(runs_->Heartbeat(kNow).ok());  // host-a's lease
  ASSERT_TRUE(a_->SetDevices(3).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("a1", "u"), kNow).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("a2", "v"), kNow + 1).ok());
  ASSERT_TRUE(b_->Enqueue(Entry("b1", "w"), kNow + 2).ok());
  ASSERT_TRUE(b_->Enqueue(Entry("gone", "w"), kNow + 3).ok());
  ASSERT_TRUE(b_->Withdraw("gone").ok());
  EXPECT_EQ(load(*b_), std::tuple(0, 3, 3));
  absl::StatusOr<std::optional<QueueEntry>> claimed = b_->Claim(kNow + 10);
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
  EXPECT_EQ(load(*a_), std::tuple(1, 2, 3));
  ASSERT_TRUE(b_->Started((*claimed)->run_id, v1::DeviceInfo(), kNow + 11).ok());
  ASSERT_TRUE(b_->End((*claimed)->run_id, 0, {}, absl::OkStatus(), kNow + 20).ok());
  EXPECT_EQ(load(*a_), std::tuple(0, 2, 3));
  // Follow's view carries the same.
  absl::StatusOr<QueueView> view = a_->Follow(kNow + 30);
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(std::tuple(view->load.running, view->load.waiting, view->load.devices),
            std::tuple(0, 2, 3));
}

TEST_P(QueueStoreTest, AWithdrawnRunIsGoneWhileWaitingAndCancelledOnceClaimed) {
  ASSERT_TRUE(a_->Enqueue(Entry("waits", "u"), kNow).ok());
  ASSERT_TRUE(a_->Enqueue(Entry("runs", "v"), kNow + 1).ok());
  absl::StatusOr<std::optional<QueueEntry>> claimed = b_->Claim(kNow + 2);
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  ASSERT_EQ((*claimed)->run_id, "waits");
  // Now "runs" waits and "waits" is claimed; the names lie, the test not.
  EXPECT_EQ(a_->Withdraw("runs").value_or(false), true);
  EXPECT_EQ(a_->Withdraw("waits").value_or(true), false);
  EXPECT_EQ(b_->CancelledClaims().value_or(std::vector<std::string>{}),
            std::vector<std::string>{"waits"});
  EXPECT_TRUE(ClaimAll(*b_, kNow + 3).empty());
}

// Host b claimed two runs of host a and started one, then stopped renewing
// its lease: the started one ends, its record interrupted; the other goes
// back to the queue for a to claim.
TEST_P(QueueStoreTest, ALapsedHostsStartedRunEndsAndItsOtherClaimGoesBack) {
  for (const char* id : {"started", "claimed"}) {
    ASSERT_TRUE(runs_->Accept(::kbench::testing::AdmittedRun(id, kNow)).ok());
    ASSERT_TRUE(a_->Enqueue(Entry(id, id), kNow).ok());
  }
  ASSERT_EQ(ClaimAll(*b_, kNow + 1).size(), 2u);
  ASSERT_TRUE(b_->Started("started", v1::DeviceInfo(), kNow + 2).ok());
  absl::StatusOr<std::unique_ptr<RunStore>> runs_b = OpenStore(spec_, "host-b");
  ASSERT_TRUE(runs_b.ok()) << runs_b.status();
  ASSERT_TRUE((*runs_b)->Heartbeat(kNow).ok());
  ASSERT_TRUE(runs_->Heartbeat(kNow + 60'000).ok());
  ASSERT_TRUE(runs_->MarkLapsedHostsInterrupted(kNow + 60'000, 30'000).ok());

  EXPECT_EQ(ClaimAll(*a_, kNow + 60'001), std::vector<std::string>{"claimed"});
  absl::StatusOr<v1::RunRecord> record = runs_->Get("started");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->status(), v1::RUN_STATUS_INTERRUPTED);
  absl::StatusOr<QueueView> view = a_->Follow(kNow + 60'002);
  ASSERT_TRUE(view.ok()) << view.status();
  const auto started = std::find_if(view->runs.begin(), view->runs.end(),
                                    [](const FollowedRun& run) { return run.run_id == "started"; });
  ASSERT_NE(started, view->runs.end());
  EXPECT_TRUE(started->ended);
  EXPECT_EQ(started->end.code(), absl::StatusCode::kUnavailable);
}

// A server restarting on its host id ends what its previous process had:
// the runs it had admitted are no longer waiting for anyone.
TEST_P(QueueStoreTest, ARestartedHostsEarlierQueueIsSwept) {
  ASSERT_TRUE(a_->Enqueue(Entry("left behind", "u"), kNow).ok());
  ASSERT_TRUE(runs_->MarkInFlightInterrupted().ok());
  EXPECT_TRUE(ClaimAll(*b_, kNow + 1).empty());
}

TEST_P(QueueStoreTest, PruneForgetsRunsThatEndedBeforeTheWindow) {
  for (const auto& [id, ended] : std::vector<std::pair<std::string, int64_t>>{
           {"old", kNow - kWindow.count() - 1000}, {"recent", kNow - kWindow.count() + 1000}}) {
    ASSERT_TRUE(a_->Enqueue(Entry(id, "x"), ended - 2000).ok());
    ASSERT_EQ(ClaimAll(*a_, ended - 2000).size(), 1u);
    ASSERT_TRUE(a_->Started(id, v1::DeviceInfo(), ended - 1000).ok());
    ASSERT_TRUE(a_->End(id, 0, {}, absl::OkStatus(), ended).ok());
  }
  ASSERT_TRUE(a_->Prune(kNow).ok());
  absl::StatusOr<QueueView> view = a_->Follow(kNow);
  ASSERT_TRUE(view.ok()) << view.status();
  ASSERT_EQ(view->runs.size(), 1u);
  EXPECT_EQ(view->runs[0].run_id, "recent");
}

INSTANTIATE_TEST_SUITE_P(Engines, QueueStoreTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const auto& info) {
                           return ::kbench::testing::StoreEngineName(info.param);
                         });

}  // namespace
}  // namespace kbench::server::store
