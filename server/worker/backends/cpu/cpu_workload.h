// What every CPU workload shares: a float output, poisoned with NaN; the
// op's device reference (kernels/simple_reference.h), computed on first use
// and compared with the output element by element; and a sample timed with
// the host's steady clock around one call of the variant on the calling
// thread. A subclass writes RunVariant and RunReference for its op.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "server/worker/device.h"

namespace kbench::server::cpu {

class CpuWorkload : public Workload {
 public:
  explicit CpuWorkload(size_t output_elements) : output_(output_elements) {}

  absl::Status PoisonOutput() final;
  absl::Status Run(int variant) final;
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode mode) final;
  std::string TimingMethod(v1::TimingMode mode) const final;
  absl::StatusOr<kernels::Comparison> CompareWithReference(
      const kernels::ElementTolerance& tolerance) final;
  absl::Status Read(ops::OutputBuffer buffer, int64_t first, std::span<float> out) final;

 protected:
  // Runs the variant at position `variant` of Problem::variants once,
  // writing output_.
  virtual void RunVariant(int variant) = 0;
  // Writes the op's simple reference of the inputs to `reference`
  // (output_.size() floats).
  virtual void RunReference(std::span<float> reference) = 0;

  std::vector<float> output_;

 private:
  const std::vector<float>& Reference();

  std::vector<float> reference_;  // empty until first used
};

}  // namespace kbench::server::cpu
