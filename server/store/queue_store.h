// The run queue that servers sharing one store run from (--shared-queue):
// any server admits a run and enqueues it here (Enqueue); each server's
// claimer takes the next run in the cluster's fair order for a free device
// of its own (Claim), runs it and writes its events here (Started, Append,
// End); the server that admitted the run follows it (Follow) and relays
// its events to its client. The tables are migration 12's (run_queue,
// run_events, host_leases.devices).
//
// Fair order, one for the whole cluster: priority runs (instructors and
// admins) first; then the run whose user is charged the least device time,
// where a user is charged the wall time of their runs that ended in the
// fair-share window, the time budget of their runs claimed and not ended,
// and the budgets of their own runs waiting ahead of this one (so equal
// users take turns: round-robin); then the oldest. A run waits for a
// device of the backend its admitting server has (a run admitted by a
// CUDA server is never claimed by a CPU one). A claim orders only
// each waiting user's oldest run, which is where the first run always is. Claims on PostgreSQL
// lock the chosen row (FOR UPDATE SKIP LOCKED), so two hosts never claim
// one run; on SQLite the transaction holds the write lock.
//
// A run's row lives from Enqueue until the fair-share window after its
// end has passed (Prune); its events from Append until the admitting host
// has read them (Follow deletes what it returns). A host that stops
// renewing its lease loses its rows to SweepQueueOfHosts (run_store.h's
// MarkLapsedHostsInterrupted and MarkInFlightInterrupted call it).
//
// Thread safety: every method may be called from any thread; calls are
// serialized on the one connection. Errors are the database's (UNAVAILABLE
// while it is unreachable: the caller retries).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/kbench.pb.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

// A run as it waits in the queue.
struct QueueEntry {
  std::string run_id;
  // Whose share it uses, and whether it goes ahead of others (see above).
  std::string user;
  bool priority = false;
  std::string op;
  // Its sampling time budget: what a claimed run is charged until it ends.
  int64_t budget_ms = 0;
  // The admitted request, resolved (validation.h Resolved).
  v1::RunRequest request;
};

// One run this host admitted, as the store has it now (see Follow).
struct FollowedRun {
  std::string run_id;
  // Waiting: its place in the cluster's order (0 starts next) and the sum
  // of the budgets of the runs ahead of it. Otherwise -1.
  int64_t position = -1;
  int64_t budget_ahead_ms = 0;
  // Started on a device of the claiming host, which is `device`.
  bool started = false;
  v1::DeviceInfo device;
  // The events written since the last Follow, in order.
  std::vector<v1::RunEvent> events;
  // Ended, with the status its executor returned.
  bool ended = false;
  absl::Status end;
};

// The cluster's runs and devices, counted (see Load).
struct ClusterLoad {
  // Runs claimed and not ended.
  int64_t running = 0;
  // Runs waiting for a device: not claimed, not cancelled, not ended.
  int64_t waiting = 0;
  // Ready devices of the hosts with a lease.
  int64_t devices = 0;
};

struct QueueView {
  std::vector<FollowedRun> runs;
  ClusterLoad load;
};

// The rows of hosts gone (`hosts_sql`: a SQL condition on a host column
// named `host`, with `hosts_params` bound in order) at `unix_ms`: their
// claims not started go back to the queue; their runs started and not
// ended end with UNAVAILABLE (`why`) and their run records become
// INTERRUPTED; the runs they admitted are cancelled (a waiting one
// removed). Run inside the caller's transaction.
absl::Status SweepQueueOfHosts(SqlDatabase& database, const std::string& hosts_sql,
                               const std::vector<SqlValue>& hosts_params, int64_t unix_ms,
                               const std::string& why);

class QueueStore {
 public:
  // Opens its own connection to the store that `spec` names (OpenStore has
  // migrated it); `host` is this server's host id, `backend` its devices'
  // (proto/ops/backends.h: it enqueues runs for that backend and claims
  // only those), `window` the fair-share window.
  static absl::StatusOr<std::unique_ptr<QueueStore>> Open(const std::string& spec, std::string host,
                                                          std::string backend,
                                                          std::chrono::milliseconds window);
  QueueStore(std::unique_ptr<SqlDatabase> database, std::string host, std::string backend,
             std::chrono::milliseconds window);

  const std::string& host() const { return host_; }

  // Queues an admitted run (this host admitted it).
  absl::Status Enqueue(const QueueEntry& entry, int64_t unix_ms);
  // The client of a run this host admitted went away. True when it was
  // still waiting and is gone; false when a host had claimed it: it is
  // marked cancelled for its claimer to stop (CancelledClaims), and ends.
  absl::StatusOr<bool> Withdraw(const std::string& run_id);

  // Claims the first waiting run of the fair order among the runs of this
  // host's backend; nullopt when none waits.
  absl::StatusOr<std::optional<QueueEntry>> Claim(int64_t unix_ms);
  // A claimed run that was not started goes back to the queue (this host
  // is stopping).
  absl::Status Release(const std::string& run_id);
  // A claimed run started on `device`.
  absl::Status Started(const std::string& run_id, const v1::DeviceInfo& device, int64_t unix_ms);
  // Appends a started run's events; the first is number `first_seq`.
  absl::Status Append(const std::string& run_id, int64_t first_seq,
                      const std::vector<v1::RunEvent>& events);
  // The run ended with `status`, after `events` (numbered from first_seq),
  // written in one transaction.
  absl::Status End(const std::string& run_id, int64_t first_seq,
                   const std::vector<v1::RunEvent>& events, const absl::Status& status,
                   int64_t unix_ms);
  // The runs this host claimed, has not ended, and whose client went away.
  absl::StatusOr<std::vector<std::string>> CancelledClaims();
  // This host's ready devices, for the cluster's ETAs.
  absl::Status SetDevices(int64_t devices);

  // The runs this host admitted that have not ended or whose end it has
  // not read, with their events since the last Follow (which it deletes);
  // an ended run is returned once. The waiting runs' places only when
  // `places` (they cost an ordering of every waiting run of the cluster).
  absl::StatusOr<QueueView> Follow(int64_t unix_ms, bool places = true);
  // The cluster's load alone (Follow's view has it too).
  absl::StatusOr<ClusterLoad> Load();

  // Forgets runs that ended before the fair-share window of `unix_ms`.
  absl::Status Prune(int64_t unix_ms);

 private:
  // Writes `events` numbered from first_seq (a number written before is
  // kept: a retry after a lost answer); requires mu_, in a transaction.
  absl::Status InsertEvents(const std::string& run_id, int64_t first_seq,
                            const std::vector<v1::RunEvent>& events);
  // Load's query; requires mu_.
  absl::StatusOr<ClusterLoad> ReadLoad();

  std::mutex mu_;
  std::unique_ptr<SqlDatabase> database_;
  const std::string host_;
  const std::string backend_;
  const int64_t window_ms_;
};

}  // namespace kbench::server::store
