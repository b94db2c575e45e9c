// What every CPU workload shares: a float output, poisoned with NaN, and a
// sample timed with the host's steady clock around one call of the variant
// on the calling thread. A subclass writes RunVariant for its op.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "server/device.h"

namespace kbench::server::cpu {

class CpuWorkload : public Workload {
 public:
  explicit CpuWorkload(size_t output_elements) : output_(output_elements) {}

  absl::Status PoisonOutput() final;
  absl::Status Run(int variant) final;
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode mode) final;
  absl::StatusOr<std::span<const float>> Output() final;
  std::string TimingMethod(v1::TimingMode mode) const final;

 protected:
  // Runs the variant at position `variant` of Problem::variants once.
  virtual void RunVariant(int variant) = 0;
  std::vector<float> output_;
};

}  // namespace kbench::server::cpu
