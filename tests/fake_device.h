// A Device for tests of the runner, scheduler and service: each variant
// takes a known time (reported, and optionally also spent sleeping so that
// queueing and cancellation can be observed), and writes a correct, wrong
// or no output (a variant it was not given: 1 ms, correct); its device
// reference is the CPU backend's simple reference of vector add, and its
// clocks follow a script. Vector add only (the
// registry's op or a FakeOp); variants are matched by name.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "server/worker/device.h"

namespace kbench::testing {

// The time a FakeVariant's shortcut reports.
inline constexpr double kShortcutMs = 0.01;

struct FakeVariant {
  double ms = 1.0;             // the time TimeSample reports
  bool correct = true;         // false: every element off by one
  bool writes = true;          // false: leaves the output as poisoned
  bool breaks_device = false;  // true: Run fails and the device turns unhealthy
  // true: the untimed run is right but timed samples write a wrong output
  // (what a kernel that breaks under back-to-back launches would do).
  bool wrong_when_timed = false;
  // true: always writes the output of the inputs it first ran on, as a
  // kernel with a cache keyed on its input pointers would; right until the
  // inputs are redrawn (Workload::Redraw).
  bool keeps_first_output = false;
  // Shortcuts a learner's kernel might try, each taking kShortcutMs and
  // writing nothing new when it applies: skips_unless_poisoned skips a
  // timed launch whose output is not poisoned (its last output is still
  // there); caches_by_inputs copies out its last output when the inputs
  // are those it computed it for.
  bool skips_unless_poisoned = false;
  bool caches_by_inputs = false;
  // What each run prints (Workload::TakePrinted), as a learner's kernel's
  // printf would.
  std::string prints = {};
};

class FakeDevice final : public server::worker::Device {
 public:
  // sleep_ms: real time each Run and TimeSample spends. backend: what
  // Info() reports ("cpu", so that admission offers the registry's ops).
  FakeDevice(std::vector<std::pair<std::string, FakeVariant>> variants, double sleep_ms = 0,
             double copy_gbps = 0, uint32_t index = 0);

  v1::DeviceInfo Info() const override;
  bool Healthy() const override { return healthy_; }
  absl::StatusOr<std::unique_ptr<server::worker::Workload>> Prepare(
      const server::Problem& problem, const server::worker::GoOn& go_on) override;
  void StartClockWatch() override;
  server::worker::ClockReading StopClockWatch() override;

  // What the k-th StopClockWatch reports: script[k % script.size()]. By
  // default every sample reads 1980 MHz, not throttled.
  void SetClockScript(std::vector<server::worker::ClockReading> script);
  // Calls of StartClockWatch or StopClockWatch out of turn (a Stop without
  // a Start, or two Starts): 0 when the runner keeps the contract.
  int clock_calls_out_of_turn() const { return out_of_turn_; }

  // Names of the variants TimeSample ran, in call order.
  std::vector<std::string> timed() const;
  int timed_count() const { return timed_count_; }
  // The seeds of Workload::Redraw calls, in call order.
  std::vector<uint64_t> redraws() const;

 private:
  friend class FakeWorkload;
  void RecordTimed(const std::string& variant);

  std::vector<std::pair<std::string, FakeVariant>> variants_;
  const double sleep_ms_;
  const double copy_gbps_;
  const uint32_t index_;
  mutable std::mutex mu_;
  std::vector<std::string> timed_;
  std::vector<uint64_t> redraws_;
  std::atomic<int> timed_count_{0};
  std::atomic<bool> healthy_{true};
  std::vector<server::worker::ClockReading> clock_script_ = {{true, 1980.0, 1980.0, false}};
  size_t clock_reads_ = 0;
  bool watching_ = false;
  int out_of_turn_ = 0;
};

}  // namespace kbench::testing
