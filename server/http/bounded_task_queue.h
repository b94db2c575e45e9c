// BoundedTaskQueue: cpp-httplib's TaskQueue (one task per accepted
// connection) on a fixed number of threads with a bounded wait list.
// cpp-httplib's own ThreadPool queues every accepted connection without
// bound, so a flood of idle connections holds a descriptor each in the
// process that also serves gRPC. Here enqueue, which cpp-httplib calls on
// its accept thread, waits while the list is full: the server accepts no
// more until a thread frees up, and the kernel's listen backlog holds (or
// refuses) the rest.
//
// Thread safety: enqueue and shutdown from cpp-httplib's accept thread;
// tasks run on the queue's own threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "httplib.h"

namespace kbench::server::http {

class BoundedTaskQueue final : public httplib::TaskQueue {
 public:
  // `threads` and `max_waiting` at least 1.
  BoundedTaskQueue(size_t threads, size_t max_waiting);
  ~BoundedTaskQueue() override;

  // Waits while `max_waiting` tasks wait already, then queues `task`.
  void enqueue(std::function<void()> task) override;
  // Runs the waiting tasks, then joins the threads. Called once, by
  // cpp-httplib when it stops listening (or by the destructor).
  void shutdown() override;

 private:
  void Serve();

  const size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> waiting_;
  bool shut_down_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kbench::server::http
