// A RunSink that records every event, and cancels itself after a given
// number of events when asked to.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include "server/runner.h"

namespace kbench::testing {

class RecordingSink final : public server::RunSink {
 public:
  // cancel_after: Cancelled() turns true once this many events arrived
  // (never when negative).
  explicit RecordingSink(int cancel_after = -1) : cancel_after_(cancel_after) {}

  void Emit(v1::RunEvent event) override {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(event));
    if (cancel_after_ >= 0 && int(events_.size()) >= cancel_after_) cancelled_ = true;
  }
  bool Cancelled() const override { return cancelled_; }

  std::vector<v1::RunEvent> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  const int cancel_after_;
  mutable std::mutex mu_;
  std::vector<v1::RunEvent> events_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace kbench::testing
