#include "server/http/bounded_task_queue.h"

#include <utility>

namespace kbench::server::http {

BoundedTaskQueue::BoundedTaskQueue(size_t threads, size_t max_waiting) : max_waiting_(max_waiting) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Serve(); });
}

BoundedTaskQueue::~BoundedTaskQueue() { shutdown(); }

void BoundedTaskQueue::enqueue(std::function<void()> task) {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return waiting_.size() < max_waiting_; });
  waiting_.push_back(std::move(task));
  changed_.notify_all();
}

void BoundedTaskQueue::shutdown() {
  {
    std::lock_guard lock(mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  changed_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void BoundedTaskQueue::Serve() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      changed_.wait(lock, [&] { return !waiting_.empty() || shut_down_; });
      // Waiting tasks run even after shutdown: each closes its connection.
      if (waiting_.empty()) return;
      task = std::move(waiting_.front());
      waiting_.pop_front();
    }
    changed_.notify_all();
    task();
  }
}

}  // namespace kbench::server::http
