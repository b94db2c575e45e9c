// Whether a CUDA device can still run work. A sticky CUDA error (see
// cuda_status.h) makes the device unhealthy for the rest of the process: the
// worker stops taking runs, the health service reports NOT_SERVING, and a
// supervisor restarts the process (DESIGN.md, data flow).
//
// Thread-safety: Healthy() and CheckUsable() may be called from any thread;
// Observe() from the device's worker thread.
#pragma once

#include <atomic>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace kbench::kernels::cuda_runtime {

class DeviceHealth {
 public:
  explicit DeviceHealth(int ordinal) : ordinal_(ordinal) {}

  bool Healthy() const { return healthy_.load(std::memory_order_acquire); }

  // OK while healthy; INTERNAL naming the sticky error once not.
  absl::Status CheckUsable() const;

  // Marks the device unhealthy when `status` carries a sticky CUDA error.
  void Observe(const absl::Status& status);

 private:
  const int ordinal_;
  std::atomic<bool> healthy_{true};
  mutable absl::Mutex mu_;
  std::string first_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::kernels::cuda_runtime
