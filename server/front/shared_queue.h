// SharedQueue: the RunQueue of a server that shares its store's queue with
// other servers (--shared-queue; store/queue_store.h). A submitted run is
// enqueued in the store, whichever server's device then claims it
// (queue_claimer.h); this server follows it there and relays it to its
// client: its place in the cluster's fair order (Queued), then, once a
// device took it, its Run on a stand-in executor that emits the events the
// claiming server writes and returns the status it ended with.
//
// One thread polls the store every `poll` while any run is followed: it
// enqueues what was submitted (retrying while the store is unreachable, so
// a database restart delays runs rather than failing them), passes
// withdrawals on (a waiting run leaves the queue; a claimed one is marked
// cancelled for its claimer to stop), and reads what the store has of the
// followed runs (Follow; their places at once for a new run, else every
// kPlacesPeriod). Each started run's Run goes on a thread of its own until
// its end is read.
//
// ETA: the time budgets of the runs ahead, shared among the cluster's
// ready devices (an estimate, as the scheduler's).
//
// Thread safety: Submit and Withdraw from any thread; callbacks come from
// the polling thread (Queued, Abandon) or a run's own (Run).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/front/run_queue.h"
#include "server/store/queue_store.h"

namespace kbench::server {

// How often the waiting runs' places in the cluster's order are read when
// no run was submitted meanwhile.
inline constexpr std::chrono::seconds kPlacesPeriod{1};

class SharedQueue final : public RunQueue {
 public:
  // `store` must outlive the queue; at most `max_waiting` runs this server
  // admitted wait at once.
  SharedQueue(store::QueueStore& store, uint32_t max_waiting,
              std::chrono::milliseconds poll = std::chrono::milliseconds(100));
  // Stops (see Stop).
  ~SharedQueue() override;

  // RESOURCE_EXHAUSTED (REASON_QUEUE_FULL) when max_waiting runs of this
  // server wait; UNAVAILABLE once stopped.
  absl::Status Submit(std::shared_ptr<QueuedRun> run) override;
  void Withdraw(const Job* job) override;
  // The cluster's, as last read (at most a kPlacesPeriod old while the
  // store answers).
  RunCounts Counts() const override;

  // Runs this server admitted that have not ended.
  uint32_t followed() const;

  // Withdraws every followed run from the store, abandons the waiting ones,
  // ends the running ones with UNAVAILABLE, and joins the threads.
  void Stop();

 private:
  class FollowedExecutor;
  struct Followed {
    std::shared_ptr<QueuedRun> run;
    int64_t told_position = -1;
    // Set once the run started on a device.
    std::shared_ptr<FollowedExecutor> executor;
  };

  void Loop();
  // One round: enqueue, withdraw, follow; the store's error stops it.
  absl::Status Round();
  void Apply(store::QueueView view);

  store::QueueStore& store_;
  const uint32_t max_waiting_;
  const std::chrono::milliseconds poll_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<std::string, Followed> followed_;
  // Submitted runs not enqueued yet.
  std::vector<store::QueueEntry> pending_;
  // Withdrawn runs the store has yet to hear of.
  std::vector<std::string> withdrawals_;
  // The threads of started runs, by run id; a finished one is joined by
  // the next round.
  std::map<std::string, std::thread> running_;
  std::vector<std::string> finished_;
  // A run was submitted since the places were last read.
  bool submitted_ = false;
  // The cluster's load as last read.
  store::ClusterLoad load_;
  // The polling thread's only:
  std::chrono::steady_clock::time_point last_places_;
  bool failing_ = false;
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace kbench::server
