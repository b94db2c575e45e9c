#include "server/front/scheduler.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/front/refusal.h"

namespace kbench::server {

Scheduler::Scheduler(std::vector<std::unique_ptr<Executor>> executors, uint32_t max_queue,
                     std::function<void(bool)> health_changed)
    : executors_(std::move(executors)),
      max_queue_(max_queue),
      health_changed_(std::move(health_changed)) {
  for (auto& executor : executors_) executor->SetStateListener([this] { StateChanged(); });
  serving_ = AnyReady();
  for (auto& executor : executors_)
    threads_.emplace_back([this, e = executor.get()] { DeviceLoop(*e); });
}

Scheduler::~Scheduler() { Stop(); }

absl::Status Scheduler::Submit(std::shared_ptr<Job> job) {
  std::lock_guard lock(mu_);
  if (draining_)
    return absl::UnavailableError("the server is shutting down; retry on another server or later");
  if (!AnyReady())
    return absl::UnavailableError(
        "no device is ready on this server (its workers are starting or restarting); retry");
  if (waiting_.size() >= max_queue_)
    return Refused(v1::Refusal::REASON_QUEUE_FULL,
                   absl::StrCat("the queue is full (", max_queue_, " runs waiting); retry later"));
  const uint64_t id = queue_.Push(job->Ticket());
  waiting_[id] = std::move(job);
  NotifyPositionsLocked();
  cv_.notify_all();
  return absl::OkStatus();
}

void Scheduler::Withdraw(const Job* job) {
  std::lock_guard lock(mu_);
  // Cancelled under mu_: the executor cannot take another job meanwhile, so
  // the cancellation reaches this job's run or none.
  if (const auto running = running_on_.find(job); running != running_on_.end()) {
    running->second->Cancel();
    return;
  }
  const auto it = std::find_if(waiting_.begin(), waiting_.end(),
                               [&](const auto& entry) { return entry.second.get() == job; });
  if (it == waiting_.end()) return;
  queue_.Remove(it->first);
  told_.erase(it->first);
  waiting_.erase(it);
  NotifyPositionsLocked();
}

void Scheduler::Drain() {
  std::lock_guard lock(mu_);
  draining_ = true;
}

void Scheduler::Stop() {
  std::vector<std::shared_ptr<Job>> abandoned;
  {
    std::lock_guard lock(mu_);
    draining_ = true;
    stopping_ = true;
    abandoned = TakeAllLocked();
    cv_.notify_all();
  }
  for (auto& job : abandoned)
    job->Abandon(absl::UnavailableError("the server stopped before the run could start; retry"));
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
}

uint32_t Scheduler::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

uint32_t Scheduler::queued() const {
  std::lock_guard lock(mu_);
  return uint32_t(waiting_.size());
}

bool Scheduler::AnyReady() const {
  return std::any_of(executors_.begin(), executors_.end(),
                     [](const auto& e) { return e->Ready(); });
}

void Scheduler::StateChanged() {
  const bool serving = AnyReady();
  const bool all_failed =
      std::all_of(executors_.begin(), executors_.end(), [](const auto& e) { return e->Failed(); });
  std::vector<std::shared_ptr<Job>> abandoned;
  bool changed = false;
  {
    std::lock_guard lock(mu_);
    changed = serving != serving_;
    serving_ = serving;
    if (all_failed) abandoned = TakeAllLocked();
    cv_.notify_all();
  }
  for (auto& job : abandoned)
    job->Abandon(absl::UnavailableError("no usable device is left on this server"));
  if (changed && health_changed_) health_changed_(serving);
}

std::vector<std::shared_ptr<Job>> Scheduler::TakeAllLocked() {
  std::vector<std::shared_ptr<Job>> jobs;
  for (auto& [id, job] : waiting_) {
    queue_.Remove(id);
    jobs.push_back(std::move(job));
  }
  waiting_.clear();
  told_.clear();
  return jobs;
}

void Scheduler::NotifyPositionsLocked() {
  const size_t devices = size_t(std::count_if(executors_.begin(), executors_.end(),
                                              [](const auto& e) { return !e->Failed(); }));
  for (const QueuePlace& place : queue_.Order(QueueClock::now(), devices)) {
    const auto told = told_.find(place.id);
    if (told != told_.end() && told->second == place.position) continue;
    told_[place.id] = place.position;
    waiting_.at(place.id)->Queued(place.position, running_, place.eta_seconds);
  }
}

void Scheduler::DeviceLoop(Executor& executor) {
  while (true) {
    std::shared_ptr<Job> job;
    uint64_t id = 0;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] {
        return stopping_ || executor.Failed() || (!waiting_.empty() && executor.Ready());
      });
      if (stopping_ || executor.Failed()) return;
      id = queue_.PopNext(QueueClock::now());
      job = std::move(waiting_.at(id));
      waiting_.erase(id);
      told_.erase(id);
      ++running_;
      running_on_[job.get()] = &executor;
      NotifyPositionsLocked();
    }
    const auto start = QueueClock::now();
    const bool completed = job->Run(executor);
    {
      std::lock_guard lock(mu_);
      const auto end = QueueClock::now();
      queue_.Finished(id, std::chrono::duration<double>(end - start).count(), completed, end);
      --running_;
      running_on_.erase(job.get());
    }
  }
}

}  // namespace kbench::server
