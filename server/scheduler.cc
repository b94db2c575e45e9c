#include "server/scheduler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kbench::server {

Scheduler::Scheduler(std::vector<std::unique_ptr<Device>> devices,
                     uint32_t max_queue, std::function<void(bool)> health_changed)
    : devices_(std::move(devices)),
      max_queue_(max_queue),
      health_changed_(std::move(health_changed)) {
  healthy_workers_ = uint32_t(devices_.size());
  for (auto& device : devices_)
    workers_.emplace_back([this, d = device.get()] { WorkerLoop(*d); });
}

Scheduler::~Scheduler() { Stop(); }

absl::Status Scheduler::Submit(std::shared_ptr<Job> job) {
  std::lock_guard lock(mu_);
  if (draining_)
    return absl::UnavailableError("the server is shutting down; retry on another server or later");
  if (healthy_workers_ == 0)
    return absl::UnavailableError("no healthy device on this server");
  if (waiting_.size() >= max_queue_)
    return absl::ResourceExhaustedError(absl::StrCat(
        "the queue is full (", max_queue_, " runs waiting); retry later"));
  waiting_.push_back(std::move(job));
  waiting_.back()->Queued(uint32_t(waiting_.size() - 1), running_);
  cv_.notify_one();
  return absl::OkStatus();
}

void Scheduler::Withdraw(const Job* job) {
  std::lock_guard lock(mu_);
  const auto it = std::find_if(waiting_.begin(), waiting_.end(),
                               [&](const auto& j) { return j.get() == job; });
  if (it == waiting_.end()) return;
  waiting_.erase(it);
  NotifyPositionsLocked();
}

void Scheduler::Drain() {
  std::lock_guard lock(mu_);
  draining_ = true;
}

void Scheduler::Stop() {
  std::deque<std::shared_ptr<Job>> abandoned;
  {
    std::lock_guard lock(mu_);
    draining_ = true;
    stopping_ = true;
    abandoned.swap(waiting_);
    cv_.notify_all();
  }
  for (auto& job : abandoned)
    job->Abandon(absl::UnavailableError("the server stopped before the run could start; retry"));
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
}

uint32_t Scheduler::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

uint32_t Scheduler::queued() const {
  std::lock_guard lock(mu_);
  return uint32_t(waiting_.size());
}

bool Scheduler::AnyHealthy() const {
  std::lock_guard lock(mu_);
  return healthy_workers_ > 0;
}

void Scheduler::NotifyPositionsLocked() {
  for (size_t i = 0; i < waiting_.size(); ++i)
    waiting_[i]->Queued(uint32_t(i), running_);
}

void Scheduler::WorkerLoop(Device& device) {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;
      job = std::move(waiting_.front());
      waiting_.pop_front();
      ++running_;
      NotifyPositionsLocked();
    }
    job->Run(device);
    bool became_unhealthy = false;
    bool none_healthy = false;
    {
      std::lock_guard lock(mu_);
      --running_;
      if (!device.Healthy()) {
        became_unhealthy = true;
        none_healthy = --healthy_workers_ == 0;
      }
    }
    if (became_unhealthy) {
      // An unusable device takes no more runs; its waiting jobs go to the
      // other workers, or are abandoned when none is left.
      if (none_healthy) {
        std::deque<std::shared_ptr<Job>> abandoned;
        {
          std::lock_guard lock(mu_);
          abandoned.swap(waiting_);
        }
        for (auto& j : abandoned)
          j->Abandon(absl::UnavailableError("no healthy device left on this server"));
        if (health_changed_) health_changed_(false);
      }
      return;
    }
  }
}

}  // namespace kbench::server
