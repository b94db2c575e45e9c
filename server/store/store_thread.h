// One thread that runs the store's blocking calls, in the order they were
// posted, off gRPC's and the scheduler's threads (which must not wait on a
// database). The destructor runs what is still queued, then joins.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace kbench::server::store {

class StoreThread {
 public:
  StoreThread();
  ~StoreThread();
  StoreThread(const StoreThread&) = delete;
  StoreThread& operator=(const StoreThread&) = delete;

  // Queues `task`; never blocks. Tasks must not throw.
  void Post(std::function<void()> task);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace kbench::server::store
