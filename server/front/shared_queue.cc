#include "server/front/shared_queue.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/common/log.h"
#include "server/front/refusal.h"
#include "server/store/unix_time.h"

namespace kbench::server {

// The executor a followed run's Run is given once a device of some server
// took it: Execute emits the events read from the store and returns the
// status the claiming server ended the run with.
class SharedQueue::FollowedExecutor final : public Executor {
 public:
  explicit FollowedExecutor(v1::DeviceInfo device) : device_(std::move(device)) {}

  v1::DeviceInfo Info() const override { return device_; }
  bool Ready() const override { return true; }
  bool Failed() const override { return false; }
  absl::Status Execute(const AdmittedRun&, const std::string&, RunSink& sink) override {
    while (true) {
      std::vector<v1::RunEvent> events;
      std::optional<absl::Status> end;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return !events_.empty() || end_.has_value(); });
        events.swap(events_);
        end = end_;
      }
      // An end is delivered after the run's last events, so with these.
      for (v1::RunEvent& event : events) sink.Emit(std::move(event));
      if (end) return *end;
    }
  }
  absl::StatusOr<v1::CompileFacts> Compile(const v1::CompileKernelRequest&) override {
    return absl::UnimplementedError("a followed run's executor compiles nothing");
  }
  void SetStateListener(std::function<void()>) override {}

  // What the store had of the run since the last delivery.
  void Deliver(std::vector<v1::RunEvent> events, std::optional<absl::Status> end) {
    std::lock_guard lock(mu_);
    for (v1::RunEvent& event : events) events_.push_back(std::move(event));
    if (end && !end_) end_ = std::move(end);
    cv_.notify_all();
  }

 private:
  const v1::DeviceInfo device_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<v1::RunEvent> events_;
  std::optional<absl::Status> end_;
};

SharedQueue::SharedQueue(store::QueueStore& store, uint32_t max_waiting,
                         std::chrono::milliseconds poll)
    : store_(store), max_waiting_(max_waiting), poll_(poll), thread_([this] { Loop(); }) {}

SharedQueue::~SharedQueue() { Stop(); }

absl::Status SharedQueue::Submit(std::shared_ptr<QueuedRun> run) {
  const QueueTicket ticket = run->Ticket();
  store::QueueEntry entry;
  entry.run_id = run->run_id();
  entry.user = ticket.user;
  entry.priority = ticket.priority;
  entry.op = ticket.op;
  entry.budget_ms = std::llround(ticket.budget_seconds * 1000);
  entry.request = run->Request();
  std::lock_guard lock(mu_);
  if (stopping_)
    return absl::UnavailableError("the server is shutting down; retry on another server or later");
  const size_t waiting = size_t(std::count_if(followed_.begin(), followed_.end(),
                                              [](const auto& f) { return !f.second.executor; }));
  if (waiting >= max_waiting_)
    return Refused(v1::Refusal::REASON_QUEUE_FULL,
                   absl::StrCat("the queue is full (", max_waiting_,
                                " runs of this server waiting); retry later"));
  Followed& followed = followed_[entry.run_id];
  followed.run = std::move(run);
  pending_.push_back(std::move(entry));
  submitted_ = true;
  cv_.notify_all();
  return absl::OkStatus();
}

void SharedQueue::Withdraw(const Job* job) {
  std::lock_guard lock(mu_);
  const auto it = std::find_if(followed_.begin(), followed_.end(),
                               [&](const auto& f) { return f.second.run.get() == job; });
  if (it == followed_.end()) return;
  const std::string run_id = it->first;
  const auto pending = std::find_if(pending_.begin(), pending_.end(),
                                    [&](const store::QueueEntry& e) { return e.run_id == run_id; });
  if (pending != pending_.end()) {
    pending_.erase(pending);  // never enqueued
  } else {
    withdrawals_.push_back(run_id);
  }
  // A waiting run gets no further callbacks; a started one ends as its
  // claimer stops it.
  if (!it->second.executor) followed_.erase(it);
  cv_.notify_all();
}

uint32_t SharedQueue::followed() const {
  std::lock_guard lock(mu_);
  return uint32_t(followed_.size());
}

void SharedQueue::Stop() {
  std::map<std::string, Followed> followed;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    followed.swap(followed_);
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  const absl::Status stopped =
      absl::UnavailableError("the server stopped before the run could start; retry");
  for (auto& [run_id, f] : followed) {
    if (absl::StatusOr<bool> withdrawn = store_.Withdraw(run_id); !withdrawn.ok())
      Log("shared queue: cannot withdraw run ", run_id, ": ", withdrawn.status().ToString());
    if (f.executor) {
      f.executor->Deliver({}, absl::UnavailableError("the server stopped while the run ran"));
    } else {
      f.run->Abandon(stopped);
    }
  }
  for (auto& [run_id, thread] : running_) thread.join();
  running_.clear();
}

void SharedQueue::Loop() {
  while (true) {
    std::vector<std::thread> finished;
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, failing_ ? std::chrono::milliseconds(500) : poll_,
                   [&] { return stopping_ || (!failing_ && !pending_.empty()); });
      if (stopping_) return;
      for (const std::string& run_id : finished_) {
        finished.push_back(std::move(running_.at(run_id)));
        running_.erase(run_id);
      }
      finished_.clear();
    }
    for (std::thread& thread : finished) thread.join();
    const absl::Status round = Round();
    if (!round.ok() && !failing_)
      Log("shared queue: the store failed (", round.ToString(), "); retrying until it answers");
    if (round.ok() && failing_) Log("shared queue: the store answers again");
    failing_ = !round.ok();
  }
}

absl::Status SharedQueue::Round() {
  std::vector<store::QueueEntry> pending;
  std::vector<std::string> withdrawals;
  {
    std::lock_guard lock(mu_);
    pending = pending_;
    withdrawals = withdrawals_;
  }
  for (const store::QueueEntry& entry : pending) {
    if (absl::Status enqueued = store_.Enqueue(entry, store::NowUnixMs()); !enqueued.ok())
      return enqueued;
    std::lock_guard lock(mu_);
    const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const store::QueueEntry& e) {
      return e.run_id == entry.run_id;
    });
    if (it != pending_.end()) {
      pending_.erase(it);
    } else {
      withdrawals_.push_back(entry.run_id);  // withdrawn while it was enqueued
    }
  }
  for (const std::string& run_id : withdrawals) {
    if (absl::StatusOr<bool> withdrawn = store_.Withdraw(run_id); !withdrawn.ok())
      return withdrawn.status();
    std::lock_guard lock(mu_);
    withdrawals_.erase(std::find(withdrawals_.begin(), withdrawals_.end(), run_id));
  }
  // Places cost an ordering of the cluster's queue: read for a new run at
  // once, else once per kPlacesPeriod; with no run to follow, only the
  // cluster's load, as often.
  const auto now = std::chrono::steady_clock::now();
  bool places = false;
  bool following = false;
  {
    std::lock_guard lock(mu_);
    following = !followed_.empty();
    places = submitted_ || now - last_places_ >= kPlacesPeriod;
    submitted_ = false;
  }
  if (!following) {
    if (!places) return absl::OkStatus();
    absl::StatusOr<store::ClusterLoad> load = store_.Load();
    if (!load.ok()) return load.status();
    last_places_ = now;
    std::lock_guard lock(mu_);
    load_ = *load;
    return absl::OkStatus();
  }
  absl::StatusOr<store::QueueView> view = store_.Follow(store::NowUnixMs(), places);
  if (!view.ok()) return view.status();
  if (places) last_places_ = now;
  Apply(*std::move(view));
  return absl::OkStatus();
}

RunCounts SharedQueue::Counts() const {
  std::lock_guard lock(mu_);
  const auto clamp = [](int64_t n) { return uint32_t(std::clamp<int64_t>(n, 0, UINT32_MAX)); };
  return {clamp(load_.running), clamp(load_.waiting)};
}

void SharedQueue::Apply(store::QueueView view) {
  // Callbacks run after the lock is released.
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mu_);
    load_ = view.load;
    for (store::FollowedRun& r : view.runs) {
      const auto it = followed_.find(r.run_id);
      if (it == followed_.end()) continue;  // withdrawn
      Followed& f = it->second;
      if (r.position >= 0 && r.position != f.told_position) {
        f.told_position = r.position;
        const double eta =
            double(r.budget_ahead_ms) / 1000 / double(std::max<int64_t>(view.load.devices, 1));
        callbacks.push_back([run = f.run, position = uint32_t(r.position),
                             running = uint32_t(view.load.running),
                             eta] { run->Queued(position, running, eta); });
      }
      if (r.started && !f.executor) {
        f.executor = std::make_shared<FollowedExecutor>(r.device);
        running_[r.run_id] = std::thread([this, run = f.run, executor = f.executor] {
          run->Run(*executor);
          std::lock_guard lock(mu_);
          finished_.push_back(run->run_id());
        });
      }
      if (f.executor) {
        f.executor->Deliver(std::move(r.events),
                            r.ended ? std::optional<absl::Status>(r.end) : std::nullopt);
        if (r.ended) followed_.erase(it);
      } else if (r.ended) {
        // Ended before it started: refused by the server that claimed it, or
        // cancelled by a sweep.
        callbacks.push_back([run = f.run, end = r.end] { run->Abandon(end); });
        followed_.erase(it);
      }
    }
  }
  for (const auto& callback : callbacks) callback();
}

}  // namespace kbench::server
