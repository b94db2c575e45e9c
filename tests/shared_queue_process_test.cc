// Servers sharing one queue in PostgreSQL (--shared-queue), as processes
// on the CPU backend: a flood on three servers that the others' runs go
// ahead of wherever they were sent; a server killed mid-run, whose run is
// interrupted once its lease lapses while the others go on; clients that go
// away, whose runs leave the queue or another server's device; and a restart
// of PostgreSQL under load that delays runs without failing any.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"
#include "tests/postgres_fixture.h"
#include "tests/server_under_test.h"

namespace kbench::testing {
namespace {

using server::store::SqlRow;

std::string NewDatabase() {
  absl::StatusOr<PostgresServer*> postgres = SharedPostgres();
  EXPECT_TRUE(postgres.ok()) << postgres.status();
  if (!postgres.ok()) return "";
  absl::StatusOr<std::string> url = (*postgres)->CreateDatabase();
  EXPECT_TRUE(url.ok()) << url.status();
  return url.value_or("");
}

// kbench-server on the CPU backend with the shared queue of `url`, one
// device, and room for a flood.
std::unique_ptr<ServerUnderTest> SharedQueueServer(const std::string& url, const std::string& host,
                                                   const std::string& auth,
                                                   double lease_seconds = 60) {
  auto server =
      std::make_unique<ServerUnderTest>(std::vector<std::string>{"--backend",
                                                                 "cpu",
                                                                 "--store",
                                                                 url,
                                                                 "--auth",
                                                                 auth,
                                                                 "--shared-queue",
                                                                 "--host-id",
                                                                 host,
                                                                 "--host-lease-seconds",
                                                                 std::to_string(lease_seconds),
                                                                 "--quota-queued-runs",
                                                                 "100",
                                                                 "--quota-open-streams",
                                                                 "100",
                                                                 "--quota-runs-per-minute",
                                                                 "500",
                                                                 "--max-streams-per-client",
                                                                 "100",
                                                                 "--max-queue",
                                                                 "100"});
  EXPECT_FALSE(server->address().empty()) << server->process().err();
  return server;
}

// A vector add that holds a CPU device about half a second: a few hundred
// samples of a million elements (VectorAdd's small n would take tens of
// thousands, and their bootstrap seconds).
v1::RunRequest ShortRun() { return VectorAdd(1 << 20, 300); }

// Two such servers, host-a and host-b, without authentication.
struct TwoServers {
  std::unique_ptr<ServerUnderTest> a, b;
};
TwoServers TwoSharedQueueServers(const std::string& url, double lease_seconds = 60) {
  TwoServers servers{SharedQueueServer(url, "host-a", "off", lease_seconds),
                     SharedQueueServer(url, "host-b", "off", lease_seconds)};
  return servers;
}

// The shared queue's rows: user, admitting host, claiming host, start.
struct QueueRow {
  std::string run_id, user, admitted, claimed;
  int64_t claimed_at = 0, started = 0, ended = 0;
};
std::vector<QueueRow> QueueRows(const std::string& url) {
  absl::StatusOr<std::unique_ptr<server::store::SqlDatabase>> database =
      server::store::OpenDatabase(url);
  EXPECT_TRUE(database.ok()) << database.status();
  if (!database.ok()) return {};
  absl::StatusOr<std::vector<SqlRow>> rows = (*database)->Query(
      "SELECT run_id, user_name, admitted_host, claimed_host, claimed_unix_ms, started_unix_ms, "
      "ended_unix_ms FROM run_queue",
      {});
  EXPECT_TRUE(rows.ok()) << rows.status();
  std::vector<QueueRow> result;
  for (const SqlRow& row : rows.value_or(std::vector<SqlRow>{}))
    result.push_back({std::get<std::string>(row[0]), std::get<std::string>(row[1]),
                      std::get<std::string>(row[2]), std::get<std::string>(row[3]),
                      std::get<int64_t>(row[4]), std::get<int64_t>(row[5]),
                      std::get<int64_t>(row[6])});
  return result;
}

// The runs in the store once none of `ended` (every run when empty) is
// queued or running (the admitting servers record a run's end just after
// its stream ends), or as they are after 10 s.
std::map<std::string, v1::RunRecord> StoredRuns(const std::string& url,
                                                const std::set<std::string>& ended = {}) {
  absl::StatusOr<std::unique_ptr<server::store::RunStore>> runs =
      server::store::OpenStore(url, "test");
  EXPECT_TRUE(runs.ok()) << runs.status();
  std::map<std::string, v1::RunRecord> by_id;
  if (!runs.ok()) return by_id;
  v1::ListRunsRequest request;
  request.set_page_size(200);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (true) {
    absl::StatusOr<v1::ListRunsResponse> page =
        (*runs)->List(request, server::store::Samples::kOmit);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) return by_id;
    by_id.clear();
    bool in_flight = false;
    for (const v1::RunRecord& record : page->runs()) {
      by_id[record.run_id()] = record;
      const bool asked = ended.empty() || ended.count(record.run_id()) > 0;
      in_flight = in_flight || (asked && (record.status() == v1::RUN_STATUS_QUEUED ||
                                          record.status() == v1::RUN_STATUS_RUNNING));
    }
    if (!in_flight || std::chrono::steady_clock::now() > deadline) return by_id;
    std::this_thread::sleep_for(100ms);
  }
}

// One learner floods 50 runs spread over three servers; 29 others then
// submit one each, also spread. Each of the 29 starts before the flooder's
// fifth run starts anywhere, every run ends OK, and every server's device
// ran runs that another server admitted.
TEST(SharedQueue, TwentyNineLearnersGoAheadOfAFloodOfFiftyOverThreeServers) {
  const std::string url = NewDatabase();
  ASSERT_FALSE(url.empty());
  std::vector<std::string> tokens;
  {
    absl::StatusOr<std::unique_ptr<server::store::IdentityStore>> identities =
        server::store::OpenIdentityStore(url);
    ASSERT_TRUE(identities.ok()) << identities.status();
    ASSERT_TRUE((*identities)->AddCohort("course").ok());
    std::vector<server::store::NewUser> users;
    for (int i = 0; i < 30; ++i)
      users.push_back({i == 0 ? std::string("flooder") : absl::StrCat("learner", i),
                       server::identity::Role::kLearner, "course", ""});
    absl::StatusOr<std::vector<std::string>> added = (*identities)->AddUsers(users);
    ASSERT_TRUE(added.ok()) << added.status();
    tokens = *added;
  }
  std::vector<std::unique_ptr<ServerUnderTest>> servers;
  for (const char* host : {"host-a", "host-b", "host-c"})
    servers.push_back(SharedQueueServer(url, host, "on"));
  for (const auto& server : servers) ASSERT_FALSE(server->address().empty());

  std::atomic<int> flood_queued{0};
  std::atomic<int> ok{0};
  std::vector<std::string> failures;
  std::mutex failures_mu;
  // The flooder's runs take 2 s, the others' about half a second: the 29
  // are queued while the flooder's first runs hold the three devices, and
  // the order, not a race, decides what runs next.
  const auto submit = [&](int server, const std::string& token, std::atomic<int>* queued) {
    auto stub = servers[size_t(server)]->Stub();
    RunStream run(*stub, queued != nullptr ? VectorAdd(1 << 20, 2000) : ShortRun(), token);
    run.ReadUntil([](const v1::RunEvent&) { return true; });
    if (queued != nullptr) ++*queued;
    const grpc::Status status = run.Finish();
    if (status.ok() && run.summary().has_value()) {
      ++ok;
    } else {
      std::lock_guard lock(failures_mu);
      failures.push_back(status.error_message());
    }
  };
  std::vector<std::thread> clients;
  for (int i = 0; i < 50; ++i) clients.emplace_back(submit, i % 3, tokens[0], &flood_queued);
  const auto flood_deadline = std::chrono::steady_clock::now() + 20s;
  while (flood_queued < 50 && std::chrono::steady_clock::now() < flood_deadline)
    std::this_thread::sleep_for(10ms);
  ASSERT_EQ(flood_queued.load(), 50) << "the flood was not queued in 20 s";
  for (int i = 1; i < 30; ++i) clients.emplace_back(submit, i % 3, tokens[size_t(i)], nullptr);
  // Every server's info counts the cluster's runs: three running (one a
  // server) and more waiting than any one server admitted (at most 27 of
  // the 79), read while the flood still waits.
  for (const auto& server : servers) {
    v1::ServerInfo info;
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    do {
      info = server->Info(tokens[1]);
      if (info.running() == 3 && info.queued() > 27) break;
      std::this_thread::sleep_for(50ms);
    } while (std::chrono::steady_clock::now() < deadline);
    EXPECT_EQ(info.running(), 3u);
    EXPECT_GT(info.queued(), 27u);
    EXPECT_LE(info.queued(), 76u);
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(ok.load(), 79);
  for (const std::string& failure : failures) ADD_FAILURE() << failure;

  const std::vector<QueueRow> rows = QueueRows(url);
  ASSERT_EQ(rows.size(), 79u);
  std::vector<int64_t> flood_starts;
  std::set<std::string> executing_hosts;
  int elsewhere = 0;
  double run_seconds = 0;
  for (const QueueRow& row : rows) {
    run_seconds += double(row.ended - row.claimed_at) / 1000;
    EXPECT_GT(row.started, 0) << row.run_id;
    if (row.user == "flooder") flood_starts.push_back(row.started);
    executing_hosts.insert(row.claimed);
    elsewhere += row.claimed != row.admitted;
  }
  ASSERT_EQ(flood_starts.size(), 50u);
  std::sort(flood_starts.begin(), flood_starts.end());
  int64_t last_other = 0;
  for (const QueueRow& row : rows)
    if (row.user != "flooder") {
      EXPECT_LT(row.started, flood_starts[4]) << row.user << " started after the flooder's fifth";
      last_other = std::max(last_other, row.started);
    }
  EXPECT_EQ(executing_hosts, (std::set<std::string>{"host-a", "host-b", "host-c"}));
  EXPECT_GT(elsewhere, 0) << "no run ran on a server other than the one that admitted it";
  std::printf(
      "[ shared   ] the 29 learners' last start %.2f s after the flooder's first, the flooder's "
      "fifth %.2f s after it; %d of 79 runs ran on a server other than their admitting one; a "
      "run held a device %.2f s on average\n",
      double(last_other - flood_starts[0]) / 1000, double(flood_starts[4] - flood_starts[0]) / 1000,
      elsewhere, run_seconds / 79);
  // The admitting servers recorded every run, whichever device ran it.
  const std::map<std::string, v1::RunRecord> stored = StoredRuns(url);
  int stored_ok = 0;
  for (const auto& [run_id, record] : stored) stored_ok += record.status() == v1::RUN_STATUS_OK;
  EXPECT_EQ(stored_ok, 79);
}

// Two servers; two long runs admitted by host-a, one on each device. host-b
// is killed: the run on its device is interrupted once its lease lapses,
// the one on host-a's device ends OK.
TEST(SharedQueue, AKilledServersRunIsInterruptedAfterItsLeaseAndTheOthersGoOn) {
  const std::string url = NewDatabase();
  ASSERT_FALSE(url.empty());
  constexpr int kLeaseSeconds = 5;
  auto [a, b] = TwoSharedQueueServers(url, kLeaseSeconds);
  ASSERT_FALSE(a->address().empty() || b->address().empty());
  auto stub = a->Stub();
  std::vector<std::unique_ptr<RunStream>> runs;
  for (int i = 0; i < 2; ++i) {
    runs.push_back(std::make_unique<RunStream>(*stub, VectorAdd(4096, 12000)));
  }
  for (auto& run : runs) ASSERT_TRUE(run->ReadUntil(IsSamples)) << a->process().err();
  std::map<std::string, std::string> host_of;
  for (const QueueRow& row : QueueRows(url)) host_of[row.run_id] = row.claimed;
  ASSERT_EQ(host_of.size(), 2u);
  // The run on host-b first: its end is timed from the kill, and host-a's
  // run goes on for its whole 12 s.
  std::stable_sort(runs.begin(), runs.end(), [&](const auto& x, const auto& y) {
    return host_of[x->started()->run_id()] == "host-b" &&
           host_of[y->started()->run_id()] != "host-b";
  });
  b->process().Signal(SIGKILL);
  ASSERT_TRUE(b->process().Wait(10s).has_value());
  const auto killed = std::chrono::steady_clock::now();
  for (auto& run : runs) {
    const std::string run_id = run->started()->run_id();
    const grpc::Status status = run->Finish();
    if (host_of[run_id] == "host-b") {
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
      EXPECT_GE(waited, kLeaseSeconds * 0.75 - 0.5) << "ended before the lease lapsed";
      EXPECT_LE(waited, kLeaseSeconds * 1.25 + 3);
      std::printf(
          "[ shared   ] the run on the killed host ended %.1f s after the kill (lease %d s)\n",
          waited, kLeaseSeconds);
    } else {
      EXPECT_TRUE(status.ok()) << status.error_message();
      EXPECT_TRUE(run->summary().has_value());
    }
  }
  const std::map<std::string, v1::RunRecord> stored = StoredRuns(url);
  for (const auto& [run_id, host] : host_of)
    EXPECT_EQ(stored.at(run_id).status(),
              host == "host-b" ? v1::RUN_STATUS_INTERRUPTED : v1::RUN_STATUS_OK)
        << run_id << " on " << host;
}

// Two long runs admitted by host-a, one on each device, and a third
// waiting. The client of the waiting one goes away: it leaves the queue.
// The client of the one on host-b's device goes away: host-b stops it,
// its record is CANCELLED, and host-b's device runs the next run.
TEST(SharedQueue, AClientThatGoesAwayTakesItsRunOffTheQueueOrOffTheOtherServersDevice) {
  const std::string url = NewDatabase();
  ASSERT_FALSE(url.empty());
  auto [a, b] = TwoSharedQueueServers(url);
  ASSERT_FALSE(a->address().empty() || b->address().empty());
  auto stub = a->Stub();
  std::vector<std::unique_ptr<RunStream>> long_runs;
  for (int i = 0; i < 2; ++i)
    long_runs.push_back(std::make_unique<RunStream>(*stub, VectorAdd(4096, 30000)));
  for (auto& run : long_runs) ASSERT_TRUE(run->ReadUntil(IsSamples)) << a->process().err();
  RunStream waiting(*stub, ShortRun());
  ASSERT_TRUE(waiting.ReadUntil([](const v1::RunEvent& e) { return e.has_queued(); }));
  const std::string waiting_id = waiting.events().back().queued().run_id();
  ASSERT_EQ(QueueRows(url).size(), 3u);
  waiting.Cancel();
  EXPECT_EQ(waiting.Finish().error_code(), grpc::StatusCode::CANCELLED);
  const auto gone = [&](const std::string& run_id) {
    for (const QueueRow& row : QueueRows(url))
      if (row.run_id == run_id) return false;
    return true;
  };
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!gone(waiting_id) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(gone(waiting_id)) << "the withdrawn run is still queued";

  std::map<std::string, std::string> host_of;
  for (const QueueRow& row : QueueRows(url)) host_of[row.run_id] = row.claimed;
  const auto on_b = std::find_if(long_runs.begin(), long_runs.end(), [&](const auto& run) {
    return host_of[run->started()->run_id()] == "host-b";
  });
  ASSERT_NE(on_b, long_runs.end());
  const std::string cancelled_id = (*on_b)->started()->run_id();
  const auto cancelled_at = std::chrono::steady_clock::now();
  (*on_b)->Cancel();
  EXPECT_EQ((*on_b)->Finish().error_code(), grpc::StatusCode::CANCELLED);
  // host-b's device is free again: the next run runs there and ends long
  // before the run on host-a's device would.
  RunStream next(*stub, ShortRun());
  const grpc::Status next_status = next.Finish();
  EXPECT_TRUE(next_status.ok()) << next_status.error_message();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled_at).count();
  EXPECT_LT(seconds, 15) << "the cancelled run held host-b's device";
  ASSERT_TRUE(next.started().has_value());
  for (const QueueRow& row : QueueRows(url)) {
    if (row.run_id == next.started()->run_id()) {
      EXPECT_EQ(row.claimed, "host-b");
    }
  }
  const std::map<std::string, v1::RunRecord> stored = StoredRuns(url, {cancelled_id});
  EXPECT_EQ(stored.at(cancelled_id).status(), v1::RUN_STATUS_CANCELLED);
  std::printf("[ shared   ] the next run ended %.1f s after its cancel freed host-b's device\n",
              seconds);
  for (auto& run : long_runs)
    if (run != *on_b) {
      run->Cancel();
      run->Finish();
    }
}

// PostgreSQL crashes and comes back while ten runs are queued or running
// on two servers: every run ends OK (delayed, not failed) and is recorded.
TEST(SharedQueue, APostgresRestartUnderLoadDelaysRunsAndLosesNone) {
  absl::StatusOr<PostgresServer*> postgres = SharedPostgres();
  ASSERT_TRUE(postgres.ok()) << postgres.status();
  const std::string url = NewDatabase();
  ASSERT_FALSE(url.empty());
  auto [a, b] = TwoSharedQueueServers(url);
  ASSERT_FALSE(a->address().empty() || b->address().empty());
  std::atomic<int> ok{0};
  std::atomic<bool> restarted{false};
  std::atomic<int> ended_after_restart{0};
  std::vector<std::string> failures;
  std::mutex failures_mu;
  std::vector<std::thread> clients;
  for (int i = 0; i < 10; ++i)
    clients.emplace_back([&, i] {
      auto stub = (i % 2 == 0 ? a : b)->Stub();
      RunStream run(*stub, ShortRun());
      const grpc::Status status = run.Finish();
      if (restarted) ++ended_after_restart;
      if (status.ok() && run.summary().has_value()) {
        ++ok;
      } else {
        std::lock_guard lock(failures_mu);
        failures.push_back(status.error_message());
      }
    });
  std::this_thread::sleep_for(700ms);
  // Counted from the restart's start: on a loaded machine the restart
  // itself takes seconds, while runs go on ending until PostgreSQL stops.
  restarted = true;
  const auto restart = std::chrono::steady_clock::now();
  ASSERT_TRUE((*postgres)->Restart().ok());
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(ok.load(), 10);
  // The restart came under load: runs were left to end after it began.
  EXPECT_GE(ended_after_restart.load(), 5);
  std::printf(
      "[ shared   ] %d of 10 runs ended after PostgreSQL's restart began, the last %.1f s after\n",
      ended_after_restart.load(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - restart).count());
  for (const std::string& failure : failures) ADD_FAILURE() << failure;
  const std::map<std::string, v1::RunRecord> stored = StoredRuns(url);
  int stored_ok = 0;
  for (const auto& [run_id, record] : stored) stored_ok += record.status() == v1::RUN_STATUS_OK;
  EXPECT_EQ(stored_ok, 10) << a->process().err() << b->process().err();
}

}  // namespace
}  // namespace kbench::testing
