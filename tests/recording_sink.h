// A RunSink that records every event, and cancels itself after a given
// number of samples when asked to.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/run/run_sink.h"

namespace kbench::testing {

class RecordingSink final : public server::RunSink {
 public:
  // cancel_after_samples: Cancelled() turns true once this many timed
  // samples have started (never when negative).
  explicit RecordingSink(int cancel_after_samples = -1)
      : cancel_after_samples_(cancel_after_samples) {}

  void Emit(v1::RunEvent event) override {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(event));
  }
  bool Cancelled() const override { return cancelled_; }
  void StepStarted(server::RunStep step, std::string_view variant) override {
    {
      std::lock_guard lock(mu_);
      steps_.emplace_back(step, std::string(variant));
    }
    if (step != server::RunStep::kSample) return;
    if (cancel_after_samples_ >= 0 && ++samples_ >= cancel_after_samples_) cancelled_ = true;
  }

  std::vector<v1::RunEvent> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  // Every StepStarted, in order, with its variant.
  std::vector<std::pair<server::RunStep, std::string>> steps() const {
    std::lock_guard lock(mu_);
    return steps_;
  }

 private:
  const int cancel_after_samples_;
  int samples_ = 0;  // the runner's thread only
  mutable std::mutex mu_;
  std::vector<v1::RunEvent> events_;
  std::vector<std::pair<server::RunStep, std::string>> steps_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace kbench::testing
