#include "server/backends/cpu/cpu_workload.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace kbench::server::cpu {

absl::Status CpuWorkload::PoisonOutput() {
  std::fill(output_.begin(), output_.end(), std::numeric_limits<float>::quiet_NaN());
  return absl::OkStatus();
}

absl::Status CpuWorkload::Run(int variant) {
  RunVariant(variant);
  return absl::OkStatus();
}

absl::StatusOr<double> CpuWorkload::TimeSample(int variant, v1::TimingMode) {
  const auto start = std::chrono::steady_clock::now();
  RunVariant(variant);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

absl::StatusOr<std::span<const float>> CpuWorkload::Output() {
  return std::span<const float>(output_);
}

std::string CpuWorkload::TimingMethod(v1::TimingMode) const {
  return "host steady_clock around the kernel call on one CPU thread; caches "
         "not flushed";
}

}  // namespace kbench::server::cpu
