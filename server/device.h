// The backend contract: a Device runs problems, a Workload is one problem's
// buffers on one device. The runner (runner.h) drives both; it is the only
// caller.
//
// Threading: a Device and its Workloads are used by one worker thread at a
// time (one job per device: timing needs an otherwise idle device), except
// Info(), Ops() and Healthy(), which any thread may call.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "kernels/attention_shape.h"
#include "kernels/dtype.h"

namespace kbench::server {

// What to compute. Variants are named as the API names them and have been
// validated against Device::Ops(); a Workload refers to them by index.
struct VectorAddProblem {
  int64_t n = 0;
  kernels::DType dtype = kernels::DType::kFp32;
  uint64_t seed = 0;
  std::vector<std::string> variants;
};

struct AttentionProblem {
  kernels::AttentionShape shape;
  kernels::DType dtype = kernels::DType::kFp32;
  uint64_t seed = 0;
  std::vector<std::string> variants;
};

// The SM clock while samples ran; available = false where it cannot be read.
struct ClockReading {
  bool available = false;
  double sm_clock_mhz = 0;
  bool throttled = false;
};

// One problem resident on a device: inputs made from the seed
// (kernels/seeded_input.h), an output buffer, and whatever scratch the
// variants need. Destroying it frees everything.
class Workload {
 public:
  virtual ~Workload() = default;

  // Fills the output with NaN, so an element no kernel writes fails
  // verification.
  virtual absl::Status PoisonOutput() = 0;
  // Runs variant `variant` once, untimed, and waits for it to complete.
  virtual absl::Status Run(int variant) = 0;
  // Runs variant `variant` and returns one sample's time in milliseconds,
  // taken as TimingMethod(mode) says (in HOT mode possibly the mean of
  // several back-to-back launches).
  virtual absl::StatusOr<double> TimeSample(int variant,
                                            v1::TimingMode mode) = 0;
  // The output of the last run, converted to float, on the host. Valid until
  // the next call on this Workload.
  virtual absl::StatusOr<std::span<const float>> Output() = 0;
  // How TimeSample measures in `mode`, in words for the learner.
  virtual std::string TimingMethod(v1::TimingMode mode) const = 0;
};

class Device {
 public:
  virtual ~Device() = default;

  // Name, index, properties and the ceilings measured at start-up.
  virtual v1::DeviceInfo Info() const = 0;
  // The ops, variants, dtypes and head_dims this device runs.
  virtual std::vector<v1::OpInfo> Ops() const = 0;
  // False once the device hit an error that leaves it unusable (a sticky
  // CUDA error): the worker stops taking runs and health reports it.
  virtual bool Healthy() const = 0;

  // Allocate and fill a problem's buffers. Fails with RESOURCE_EXHAUSTED when
  // the device lacks the memory, INVALID_ARGUMENT for a combination it
  // cannot run.
  virtual absl::StatusOr<std::unique_ptr<Workload>> PrepareVectorAdd(
      const VectorAddProblem& problem) = 0;
  virtual absl::StatusOr<std::unique_ptr<Workload>> PrepareAttention(
      const AttentionProblem& problem) = 0;

  // The SM clock now (called by the runner between samples).
  virtual ClockReading ReadClock() = 0;
};

}  // namespace kbench::server
