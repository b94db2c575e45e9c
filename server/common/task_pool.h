// A few threads of one's own for blocking work that a gRPC reaction must
// not do itself (reactions never block), e.g. a kernel compile: a fixed
// number of threads and a bounded queue, so a flood of requests waits or is
// refused instead of starting a thread (or a compiler) each.
//
// Threading: Submit from any thread. The destructor runs every task already
// queued (each may have a reactor to finish), then joins the threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"

namespace kbench::server {

class TaskPool {
 public:
  TaskPool(size_t threads, size_t max_queued);
  ~TaskPool();

  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues `task`; RESOURCE_EXHAUSTED (naming max_queued) when max_queued
  // tasks wait already.
  absl::Status Submit(std::function<void()> task);

 private:
  void Work();

  const size_t max_queued_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kbench::server
