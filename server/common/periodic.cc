#include "server/common/periodic.h"

#include <utility>

namespace kbench::server {

Periodic::Periodic(std::chrono::milliseconds period, std::function<void()> call)
    : period_(period), call_(std::move(call)), thread_([this] {
        std::unique_lock lock(mu_);
        while (!stop_cv_.wait_for(lock, period_, [&] { return stopping_; })) {
          lock.unlock();
          call_();
          lock.lock();
        }
      }) {}

Periodic::~Periodic() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

}  // namespace kbench::server
