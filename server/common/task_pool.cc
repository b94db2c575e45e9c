#include "server/common/task_pool.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kbench::server {

TaskPool::TaskPool(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

TaskPool::~TaskPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

absl::Status TaskPool::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= max_queued_)
      return absl::ResourceExhaustedError(
          absl::StrCat(max_queued_, " requests wait already; retry in a moment"));
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return absl::OkStatus();
}

void TaskPool::Work() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace kbench::server
