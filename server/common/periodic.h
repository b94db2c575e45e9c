// Periodic: calls a function every `period` on a thread of its own, the
// first time one period after construction, until destroyed. The
// destructor wakes the thread, waits for a call in progress to return, and
// joins it. What the function does (and logs) is its own.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace kbench::server {

class Periodic {
 public:
  Periodic(std::chrono::milliseconds period, std::function<void()> call);
  ~Periodic();
  Periodic(const Periodic&) = delete;
  Periodic& operator=(const Periodic&) = delete;

 private:
  const std::chrono::milliseconds period_;
  const std::function<void()> call_;
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

}  // namespace kbench::server
