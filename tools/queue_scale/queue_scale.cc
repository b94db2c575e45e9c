// kbench_queue_scale: the shared run queue (server/store/queue_store.h) at
// a cluster's size, with fake devices, against one database. Simulates
// --hosts servers of --devices devices each, and --learners learners who
// each keep one run in flight: a learner's run is enqueued on a random
// host (each host admits on its own thread); a host's claimer claims, every --claim-poll-ms and
// when one of its runs ends, the next runs of the fair order for its idle devices (as a server's,
// queue_claimer.h); a device "runs" it for --run-ms (its thread sleeps) and writes one event and
// its end, which the admitting host's follower reads every
// --follow-poll-ms; the learner then thinks up to --think-ms and submits
// again. Every host holds one connection, as a server does (its claimer,
// devices and follower share it).
//
// After --warmup-seconds it measures for --seconds: runs ended per second,
// how busy the devices were, the latency of a claim (one that found a
// run), of a follower's read and of an enqueue (median, 95th and 99th
// percentile, slowest), the runs waiting at the end, and the database's
// commits per second (PostgreSQL's pg_stat_database). --json prints one
// JSON object. --check exits 1 unless every run ended once, on one device,
// and reached its learner.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "server/front/shared_queue.h"
#include "server/store/queue_store.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"
#include "server/store/unix_time.h"

namespace kbench::tools {
namespace {

using server::store::QueueEntry;
using server::store::QueueStore;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string store;
  int hosts = 50;
  int devices = 8;
  int learners = 5000;
  int run_ms = 2000;
  int think_ms = 1000;
  int claim_poll_ms = 50;
  int follow_poll_ms = 100;
  double warmup_seconds = 5;
  double seconds = 30;
  bool json = false;
  bool check = false;
};

// Latencies in milliseconds, kept while measuring.
class Latencies {
 public:
  void Add(double ms) {
    std::lock_guard lock(mu_);
    values_.push_back(ms);
  }
  nlohmann::json Summary() {
    std::lock_guard lock(mu_);
    std::sort(values_.begin(), values_.end());
    const auto at = [&](double q) {
      return values_.empty() ? 0.0 : values_[size_t(q * double(values_.size() - 1))];
    };
    return {{"count", values_.size()},
            {"p50", at(0.5)},
            {"p95", at(0.95)},
            {"p99", at(0.99)},
            {"max", at(1.0)}};
  }

 private:
  std::mutex mu_;
  std::vector<double> values_;
};

double Ms(Clock::duration duration) {
  return std::chrono::duration<double, std::milli>(duration).count();
}

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

class Simulation {
 public:
  explicit Simulation(Options options) : options_(std::move(options)) {}

  int Run() {
    absl::StatusOr<std::unique_ptr<server::store::RunStore>> migrated =
        server::store::OpenStore(options_.store, "queue-scale");
    if (!migrated.ok()) return Fail(migrated.status());
    for (int h = 0; h < options_.hosts; ++h) {
      absl::StatusOr<std::unique_ptr<QueueStore>> store =
          QueueStore::Open(options_.store, absl::StrCat("sim-host-", h), "cuda",
                           std::chrono::milliseconds(3'600'000));
      if (!store.ok()) return Fail(store.status());
      hosts_.push_back(*std::move(store));
    }
    window_start_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(options_.warmup_seconds));
    window_end_ = window_start_ + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(options_.seconds));
    std::vector<std::thread> threads;
    for (int h = 0; h < options_.hosts; ++h) {
      host_state_.push_back(std::make_unique<Host>());
      for (int d = 0; d < options_.devices; ++d) threads.emplace_back([this, h] { Device(h); });
      threads.emplace_back([this, h] { Claimer(h); });
      threads.emplace_back([this, h] { Follower(h); });
    }
    for (int l = 0; l < options_.learners; ++l) Ready(l, Clock::now());
    for (int h = 0; h < options_.hosts; ++h) threads.emplace_back([this, h] { Submitter(h); });

    std::this_thread::sleep_until(window_start_);
    const int64_t commits_before = Commits();
    const int64_t ended_before = ended_;
    const auto start = Clock::now();
    measuring_ = true;
    std::this_thread::sleep_until(window_end_);
    measuring_ = false;
    const double elapsed = MsSince(start) / 1000;
    const int64_t ended = ended_ - ended_before;
    // Runs still going count up to the window's end.
    for (auto& host : host_state_) {
      std::lock_guard lock(host->mu);
      for (const Clock::time_point since : host->running_since)
        busy_ms_.fetch_add(Overlap(since, window_end_));
      host->counted = true;
    }
    const double busy = busy_ms_;
    const int64_t commits_after = Commits();
    const int64_t commits =
        commits_before < 0 || commits_after < 0 ? -1 : commits_after - commits_before;
    const int64_t waiting = Waiting();
    stopping_ = true;
    for (auto& host : host_state_) {
      std::lock_guard lock(host->mu);
      host->cv.notify_all();
      host->claimer_cv.notify_all();
      host->submitter_cv.notify_all();
    }
    for (std::thread& thread : threads) thread.join();

    nlohmann::json result = {
        {"engine", options_.store.rfind("postgres", 0) == 0 ? "postgresql" : "sqlite"},
        {"hosts", options_.hosts},
        {"devices_per_host", options_.devices},
        {"learners", options_.learners},
        {"run_ms", options_.run_ms},
        {"think_ms", options_.think_ms},
        {"seconds", elapsed},
        {"runs_per_second", double(ended) / elapsed},
        {"ideal_runs_per_second",
         double(options_.hosts * options_.devices) * 1000 / double(options_.run_ms)},
        {"device_busy_fraction",
         busy / (elapsed * 1000 * double(options_.hosts * options_.devices))},
        {"claim_ms", claims_.Summary()},
        {"follow_ms", follows_.Summary()},
        {"enqueue_ms", enqueues_.Summary()},
        {"waiting_at_end", waiting},
        {"commits_per_second", commits < 0 ? -1.0 : double(commits) / elapsed},
        {"errors", errors_.load()},
        {"duplicates", duplicates_.load()}};
    if (options_.json) {
      std::cout << result.dump() << "\n";
    } else {
      Print(result);
    }
    if (options_.check && (errors_ > 0 || duplicates_ > 0 || ended == 0)) {
      std::cerr << "queue_scale: check failed: " << errors_ << " store errors, " << duplicates_
                << " runs ended twice or reached no learner, " << ended << " runs ended\n";
      return 1;
    }
    return 0;
  }

 private:
  int Fail(const absl::Status& status) {
    std::cerr << "queue_scale: " << status << "\n";
    return 2;
  }

  void Print(const nlohmann::json& r) {
    const auto latency = [](const nlohmann::json& l) {
      return absl::StrFormat("median %.2f, p95 %.2f, p99 %.2f, max %.2f ms (%d)",
                             l["p50"].get<double>(), l["p95"].get<double>(), l["p99"].get<double>(),
                             l["max"].get<double>(), l["count"].get<int64_t>());
    };
    std::printf("%d hosts x %d devices, %d learners, runs of %d ms, on %s, %.1f s measured\n",
                options_.hosts, options_.devices, options_.learners, options_.run_ms,
                r["engine"].get<std::string>().c_str(), r["seconds"].get<double>());
    std::printf("  runs ended: %.1f per second (the devices' ideal: %.1f); devices busy %.1f%%\n",
                r["runs_per_second"].get<double>(), r["ideal_runs_per_second"].get<double>(),
                100 * r["device_busy_fraction"].get<double>());
    std::printf("  claim:   %s\n", latency(r["claim_ms"]).c_str());
    std::printf("  follow:  %s\n", latency(r["follow_ms"]).c_str());
    std::printf("  enqueue: %s\n", latency(r["enqueue_ms"]).c_str());
    const double commits = r["commits_per_second"].get<double>();
    std::printf("  waiting at the end: %lld runs; database commits: %s\n",
                (long long)r["waiting_at_end"].get<int64_t>(),
                commits < 0 ? "not measured (SQLite)"
                            : absl::StrFormat("%.0f per second", commits).c_str());
  }

  // Milliseconds of [from, to) within the measured window.
  double Overlap(Clock::time_point from, Clock::time_point to) const {
    const Clock::time_point a = std::max(from, window_start_);
    const Clock::time_point b = std::min(to, window_end_);
    return b > a ? Ms(b - a) : 0;
  }

  // A learner may submit again at `at`, on a random host.
  void Ready(int learner, Clock::time_point at) {
    Host& host = *host_state_[size_t(learner * 7919 + next_ready_++) % host_state_.size()];
    std::lock_guard lock(host.mu);
    host.ready.push({at, learner});
    host.submitter_cv.notify_one();
  }

  // A host's admissions: enqueues its learners' runs, on its connection.
  void Submitter(int host) {
    Host& h = *host_state_[size_t(host)];
    int64_t next_run = 0;
    while (!stopping_) {
      int learner = 0;
      {
        std::unique_lock lock(h.mu);
        h.submitter_cv.wait_for(lock, std::chrono::milliseconds(20), [&] {
          return stopping_ || (!h.ready.empty() && h.ready.top().at <= Clock::now());
        });
        if (stopping_) return;
        if (h.ready.empty() || h.ready.top().at > Clock::now()) continue;
        learner = h.ready.top().learner;
        h.ready.pop();
      }
      QueueEntry entry;
      entry.run_id = absl::StrCat("sim-run-", host, "-", next_run++);
      entry.user = absl::StrCat("learner-", learner);
      entry.op = "vector_add";
      entry.budget_ms = options_.run_ms;
      entry.request.mutable_vector_add()->set_n(1 << 20);
      {
        std::lock_guard lock(runs_mu_);
        learner_of_[entry.run_id] = learner;
      }
      const auto start = Clock::now();
      if (const absl::Status status =
              hosts_[size_t(host)]->Enqueue(entry, server::store::NowUnixMs());
          !status.ok()) {
        Error(status);
        Ready(learner, Clock::now() + std::chrono::milliseconds(100));
        continue;
      }
      if (measuring_) enqueues_.Add(MsSince(start));
    }
  }

  // A host's claimer, as the server's (queue_claimer.h): every
  // --claim-poll-ms it claims a run for each idle device of its host.
  void Claimer(int host) {
    QueueStore& store = *hosts_[size_t(host)];
    Host& h = *host_state_[size_t(host)];
    while (!stopping_) {
      {
        std::unique_lock lock(h.mu);
        h.claimer_cv.wait_for(lock, std::chrono::milliseconds(options_.claim_poll_ms),
                              [&] { return stopping_ || h.woken; });
        h.woken = false;
      }
      while (!stopping_) {
        {
          std::lock_guard lock(h.mu);
          if (h.busy + int(h.claimed.size()) >= options_.devices) break;
        }
        const auto start = Clock::now();
        absl::StatusOr<std::optional<QueueEntry>> claimed = store.Claim(server::store::NowUnixMs());
        if (!claimed.ok()) {
          Error(claimed.status());
          break;
        }
        if (!claimed->has_value()) break;
        if (measuring_) claims_.Add(MsSince(start));
        std::lock_guard lock(h.mu);
        h.claimed.push_back((*claimed)->run_id);
        h.cv.notify_one();
      }
    }
    std::lock_guard lock(h.mu);
    h.cv.notify_all();
  }

  // One device: runs what its host's claimer claimed.
  void Device(int host) {
    QueueStore& store = *hosts_[size_t(host)];
    Host& h = *host_state_[size_t(host)];
    while (true) {
      std::string run_id;
      {
        std::unique_lock lock(h.mu);
        h.cv.wait(lock, [&] { return stopping_ || !h.claimed.empty(); });
        if (stopping_) return;
        run_id = h.claimed.front();
        h.claimed.pop_front();
        ++h.busy;
      }
      const auto started = Clock::now();
      {
        std::lock_guard lock(h.mu);
        h.running_since.insert(started);
      }
      if (const absl::Status status =
              store.Started(run_id, v1::DeviceInfo(), server::store::NowUnixMs());
          !status.ok())
        Error(status);
      std::this_thread::sleep_for(std::chrono::milliseconds(options_.run_ms));
      v1::RunEvent event;
      event.mutable_summary()->set_all_verified(true);
      if (const absl::Status status =
              store.End(run_id, 0, {event}, absl::OkStatus(), server::store::NowUnixMs());
          !status.ok())
        Error(status);
      std::lock_guard lock(h.mu);
      h.running_since.erase(h.running_since.find(started));
      if (!h.counted) busy_ms_.fetch_add(Overlap(started, Clock::now()));
      --h.busy;
      h.woken = true;  // as a server's claimer is when a run ends
      h.claimer_cv.notify_one();
    }
  }

  void Follower(int host) {
    QueueStore& store = *hosts_[size_t(host)];
    std::map<std::string, int> events_read;  // by run
    std::mt19937 random{uint32_t(host)};     // think times
    Clock::time_point last_places;
    while (!stopping_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options_.follow_poll_ms));
      const auto start = Clock::now();
      // Places once per period, as a server's (shared_queue.h kPlacesPeriod).
      const bool places = start - last_places >= server::kPlacesPeriod;
      if (places) last_places = start;
      absl::StatusOr<server::store::QueueView> view =
          store.Follow(server::store::NowUnixMs(), places);
      if (!view.ok()) {
        Error(view.status());
        continue;
      }
      if (measuring_) follows_.Add(MsSince(start));
      for (const server::store::FollowedRun& run : view->runs) {
        // A run's event may come with its end or a read before it.
        events_read[run.run_id] += int(run.events.size());
        if (!run.ended) continue;
        const int events = events_read[run.run_id];
        events_read.erase(run.run_id);
        int learner = -1;
        {
          std::lock_guard lock(runs_mu_);
          const auto it = learner_of_.find(run.run_id);
          if (it != learner_of_.end()) {
            learner = it->second;
            learner_of_.erase(it);
          }
        }
        if (learner < 0 || events != 1) {
          ++duplicates_;
          continue;
        }
        ++ended_;
        std::uniform_int_distribution<int> think(0, options_.think_ms);
        Ready(learner, Clock::now() + std::chrono::milliseconds(think(random)));
      }
    }
  }

  void Error(const absl::Status& status) {
    if (errors_++ == 0) std::cerr << "queue_scale: the store failed: " << status << "\n";
  }

  // The database's commits so far (PostgreSQL), or -1.
  int64_t Commits() {
    if (options_.store.rfind("postgres", 0) != 0) return -1;
    absl::StatusOr<std::unique_ptr<server::store::SqlDatabase>> database =
        server::store::OpenDatabase(options_.store);
    if (!database.ok()) return -1;
    absl::StatusOr<std::vector<server::store::SqlRow>> rows = (*database)->Query(
        "SELECT CAST(xact_commit AS BIGINT) FROM pg_stat_database "
        "WHERE datname = current_database()",
        {});
    if (!rows.ok() || rows->empty()) return -1;
    return std::get<int64_t>((*rows)[0][0]);
  }

  int64_t Waiting() {
    absl::StatusOr<std::unique_ptr<server::store::SqlDatabase>> database =
        server::store::OpenDatabase(options_.store);
    if (!database.ok()) return -1;
    absl::StatusOr<std::vector<server::store::SqlRow>> rows =
        (*database)->Query("SELECT COUNT(*) FROM run_queue WHERE claimed_host = ''", {});
    if (!rows.ok() || rows->empty()) return -1;
    return std::get<int64_t>((*rows)[0][0]);
  }

  struct ReadyAt {
    Clock::time_point at;
    int learner;
    bool operator>(const ReadyAt& other) const { return at > other.at; }
  };

  // A host's devices and the runs its claimer claimed for them.
  struct Host {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::string> claimed;
    int busy = 0;
    std::multiset<Clock::time_point> running_since;  // the busy devices' starts
    bool counted = false;                            // its device time is summed: add no more
    std::condition_variable claimer_cv;
    bool woken = false;
    // Learners who submit to this host next, soonest first.
    std::priority_queue<ReadyAt, std::vector<ReadyAt>, std::greater<>> ready;
    std::condition_variable submitter_cv;
  };

  const Options options_;
  std::vector<std::unique_ptr<QueueStore>> hosts_;
  std::vector<std::unique_ptr<Host>> host_state_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> measuring_{false};
  std::atomic<uint64_t> next_ready_{0};
  std::mutex runs_mu_;
  std::map<std::string, int> learner_of_;
  std::atomic<int64_t> ended_{0};
  // The measured window, set before the threads start.
  Clock::time_point window_start_, window_end_;
  std::atomic<double> busy_ms_{0};
  std::atomic<int64_t> errors_{0};
  std::atomic<int64_t> duplicates_{0};
  Latencies claims_, follows_, enqueues_;
};

}  // namespace
}  // namespace kbench::tools

int main(int argc, char** argv) {
  kbench::tools::Options options;
  CLI::App app{
      "kbench_queue_scale: the shared run queue at a cluster's size, with fake devices "
      "(tools/queue_scale/README.md)"};
  app.add_option("--store", options.store,
                 "The store: a postgresql:// URL (or a SQLite path, for a small check)")
      ->required();
  app.add_option("--hosts", options.hosts, "Servers sharing the queue")
      ->check(CLI::Range(1, 200))
      ->capture_default_str();
  app.add_option("--devices", options.devices, "Devices per server")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  app.add_option("--learners", options.learners, "Learners, each with one run in flight")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--run-ms", options.run_ms, "How long a run holds its device")
      ->check(CLI::Range(1, 600000))
      ->capture_default_str();
  app.add_option("--think-ms", options.think_ms, "A learner waits up to this long between runs")
      ->check(CLI::Range(0, 600000))
      ->capture_default_str();
  app.add_option("--claim-poll-ms", options.claim_poll_ms,
                 "An idle device looks for a run this often")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--follow-poll-ms", options.follow_poll_ms,
                 "Each server reads its followed runs this often")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--warmup-seconds", options.warmup_seconds, "Seconds before measuring")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_option("--seconds", options.seconds, "Seconds measured")
      ->check(CLI::Range(0.5, 3600.0))
      ->capture_default_str();
  app.add_flag("--json", options.json, "Print one JSON object");
  app.add_flag("--check", options.check,
               "Exit 1 unless every run ended once and reached its learner, with no store error");
  CLI11_PARSE(app, argc, argv);
  return kbench::tools::Simulation(options).Run();
}
