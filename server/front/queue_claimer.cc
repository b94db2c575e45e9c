#include "server/front/queue_claimer.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/common/log.h"
#include "server/run/run_sink.h"
#include "server/store/unix_time.h"

namespace kbench::server {
namespace {

// Retries `write` every quarter second while it fails, for up to
// kStoreRetry; logs what it could not write.
void WriteRetrying(const std::string& what, const std::string& run_id,
                   const std::function<absl::Status()>& write) {
  const auto deadline = std::chrono::steady_clock::now() + kStoreRetry;
  while (true) {
    const absl::Status status = write();
    if (status.ok()) return;
    if (std::chrono::steady_clock::now() > deadline) {
      Log("shared queue: cannot record ", what, " of run ", run_id, ": ", status.ToString());
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace

// A claimed run as the scheduler runs it: its events and end go to the
// store. Exactly one of Run, Abandon and Cancel (before Run) takes it.
class QueueClaimer::ClaimedJob final : public Job, public RunSink {
 public:
  // `ended` is called once the run's end is written (its device is free).
  ClaimedJob(store::QueueStore& store, store::QueueEntry entry, AdmittedRun run,
             std::function<void()> ended)
      : store_(store), entry_(std::move(entry)), run_(std::move(run)), ended_(std::move(ended)) {}

  QueueTicket Ticket() const override {
    return {entry_.user, entry_.priority, entry_.op, double(entry_.budget_ms) / 1000};
  }
  void Queued(uint32_t, uint32_t, double) override {}  // its client hears of the shared queue
  bool Run(Executor& executor) override {
    if (!Take()) return false;  // cancelled, and ended, before it started
    WriteRetrying("its start", entry_.run_id, [&] {
      return store_.Started(entry_.run_id, executor.Info(), store::NowUnixMs());
    });
    const absl::Status status = cancelled_ ? absl::CancelledError("run cancelled by the client")
                                           : executor.Execute(run_, entry_.run_id, *this);
    WriteEnd(status);
    ended_();
    return status.ok();
  }
  void Abandon(const absl::Status&) override {
    if (Take())
      WriteRetrying("its release", entry_.run_id, [&] { return store_.Release(entry_.run_id); });
  }

  void Emit(v1::RunEvent event) override {
    std::lock_guard lock(mu_);
    pending_.push_back(std::move(event));
    // Kept for the next event or the end while the store fails.
    if (store_.Append(entry_.run_id, next_seq_, pending_).ok()) {
      next_seq_ += int64_t(pending_.size());
      pending_.clear();
    }
  }
  bool Cancelled() const override { return cancelled_; }

  // Its client went away: the run stops (or never starts: its end is
  // written here).
  void Cancel(Scheduler& scheduler) {
    cancelled_ = true;
    scheduler.Withdraw(this);
    if (Take()) WriteEnd(absl::CancelledError("run cancelled by the client"));
  }

 private:
  bool Take() {
    bool taken = false;
    return taken_.compare_exchange_strong(taken, true);
  }
  void WriteEnd(const absl::Status& status) {
    std::lock_guard lock(mu_);
    WriteRetrying("its end", entry_.run_id, [&] {
      return store_.End(entry_.run_id, next_seq_, pending_, status, store::NowUnixMs());
    });
  }

  store::QueueStore& store_;
  const store::QueueEntry entry_;
  const AdmittedRun run_;
  const std::function<void()> ended_;
  std::atomic<bool> taken_{false};
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  int64_t next_seq_ = 0;
  std::vector<v1::RunEvent> pending_;  // not written yet
};

QueueClaimer::QueueClaimer(store::QueueStore& store, Scheduler& scheduler, Admit admit,
                           std::chrono::milliseconds poll)
    : store_(store), scheduler_(scheduler), admit_(std::move(admit)), poll_(poll), thread_([this] {
        Loop();
      }) {}

QueueClaimer::~QueueClaimer() { Stop(); }

void QueueClaimer::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void QueueClaimer::Wake() {
  std::lock_guard lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

void QueueClaimer::Loop() {
  while (true) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, failing_ ? std::chrono::milliseconds(500) : poll_,
                   [&] { return stopping_ || woken_; });
      if (stopping_) return;
      woken_ = false;
    }
    const absl::Status round = Round();
    if (!round.ok() && !failing_)
      Log("shared queue: cannot claim runs (", round.ToString(),
          "); retrying until the store answers");
    if (round.ok() && failing_) Log("shared queue: claiming runs again");
    failing_ = !round.ok();
  }
}

absl::Status QueueClaimer::Round() {
  KBENCH_RETURN_IF_ERROR(ClaimForIdleDevices());
  std::erase_if(claimed_, [](const auto& entry) { return entry.second.expired(); });
  if (!claimed_.empty()) {
    KBENCH_ASSIGN_OR_RETURN(const std::vector<std::string> cancelled, store_.CancelledClaims());
    for (const std::string& run_id : cancelled)
      if (const auto it = claimed_.find(run_id); it != claimed_.end())
        if (std::shared_ptr<ClaimedJob> job = it->second.lock()) job->Cancel(scheduler_);
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - last_devices_ >= kDevicesPeriod) {
    const auto& executors = scheduler_.executors();
    KBENCH_RETURN_IF_ERROR(store_.SetDevices(std::count_if(
        executors.begin(), executors.end(), [](const auto& e) { return e->Ready(); })));
    last_devices_ = now;
  }
  if (now - last_prune_ >= kPrunePeriod) {
    KBENCH_RETURN_IF_ERROR(store_.Prune(store::NowUnixMs()));
    last_prune_ = now;
  }
  return absl::OkStatus();
}

absl::Status QueueClaimer::ClaimForIdleDevices() {
  const auto& executors = scheduler_.executors();
  int64_t idle =
      std::count_if(executors.begin(), executors.end(), [](const auto& e) { return e->Ready(); }) -
      int64_t(scheduler_.running()) - int64_t(scheduler_.queued());
  for (; idle > 0; --idle) {
    KBENCH_ASSIGN_OR_RETURN(std::optional<store::QueueEntry> claimed,
                            store_.Claim(store::NowUnixMs()));
    if (!claimed) break;
    const std::string run_id = claimed->run_id;
    absl::StatusOr<AdmittedRun> admitted = admit_(claimed->request);
    if (!admitted.ok()) {
      Log("shared queue: run ", run_id, " is refused here: ", admitted.status().ToString());
      WriteRetrying("its end", run_id, [&] {
        return store_.End(run_id, 0, {}, admitted.status(), store::NowUnixMs());
      });
      continue;
    }
    auto job = std::make_shared<ClaimedJob>(store_, *std::move(claimed), *std::move(admitted),
                                            [this] { Wake(); });
    if (const absl::Status submitted = scheduler_.Submit(job); !submitted.ok()) {
      job->Abandon(submitted);  // back to the queue
      break;
    }
    claimed_[run_id] = job;
  }
  return absl::OkStatus();
}

}  // namespace kbench::server
