// QueueClaimer: this server's devices running the shared queue
// (--shared-queue; store/queue_store.h). Every `poll` it claims, for each
// ready device with nothing to do (and at once when a run it claimed
// ends), the next run of the cluster's fair
// order, admits its request again as this server would (a request that
// this server's limits refuse ends with that error), and hands it to the
// scheduler as a job whose events go to the store for the admitting server
// to relay (shared_queue.h). It stops the runs whose client went away
// (QueueStore::CancelledClaims), renews this host's count of ready devices
// (every kDevicesPeriod) and prunes the queue's ended runs (every
// kPrunePeriod).
//
// A claimed run's writes to the store retry while the database is
// unreachable (up to kStoreRetry): a restart of the database delays the
// run's events, it does not lose its end. A run the scheduler abandons
// (this server is stopping) goes back to the queue.
//
// Thread safety: its own thread and the scheduler's device threads; the
// destructor stops claiming (runs claimed go on in the scheduler).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "server/front/scheduler.h"
#include "server/run/run_plan.h"
#include "server/store/queue_store.h"

namespace kbench::server {

// How long a claimed run's writes retry while the store is unreachable.
inline constexpr std::chrono::seconds kStoreRetry{120};
// How often a server writes its count of ready devices, and prunes the
// queue's runs that ended before the fair-share window.
inline constexpr std::chrono::seconds kDevicesPeriod{1};
inline constexpr std::chrono::seconds kPrunePeriod{60};

class QueueClaimer {
 public:
  // Admission of a claimed request (KernelBenchService::AdmitRequest).
  using Admit = std::function<absl::StatusOr<AdmittedRun>(const v1::RunRequest&)>;

  // `store` and `scheduler` must outlive the claimer.
  QueueClaimer(store::QueueStore& store, Scheduler& scheduler, Admit admit,
               std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  ~QueueClaimer();

  // Claims no more runs (the server is draining).
  void Stop();

 private:
  class ClaimedJob;

  // A device of this server is free: claim for it now.
  void Wake();
  void Loop();
  // One round; the store's error stops it.
  absl::Status Round();
  // Claims and starts runs while a ready device is idle.
  absl::Status ClaimForIdleDevices();

  store::QueueStore& store_;
  Scheduler& scheduler_;
  const Admit admit_;
  const std::chrono::milliseconds poll_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool woken_ = false;
  // The runs claimed and not ended, by run id (the thread's only).
  std::map<std::string, std::weak_ptr<ClaimedJob>> claimed_;
  std::chrono::steady_clock::time_point last_devices_;
  std::chrono::steady_clock::time_point last_prune_;
  bool failing_ = false;
  std::thread thread_;  // last: starts once the rest is ready
};

}  // namespace kbench::server
