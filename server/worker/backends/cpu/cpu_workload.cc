#include "server/worker/backends/cpu/cpu_workload.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"

namespace kbench::server::worker::backends::cpu {

absl::Status FillSeededInput(uint64_t seed, kernels::InputStream stream, std::span<float> out,
                             const GoOn& go_on) {
  // 256 Ki elements: well under a millisecond on one core.
  constexpr size_t kChunk = size_t(1) << 18;
  for (size_t first = 0; first < out.size(); first += kChunk) {
    KBENCH_RETURN_IF_ERROR(go_on());
    kernels::FillSeeded(seed, stream, first, std::min(kChunk, out.size() - first),
                        out.data() + first);
  }
  return absl::OkStatus();
}

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

std::string CpuWorkload::TimingMethod(v1::TimingMode) const {
  return "host steady_clock around the kernel call on one CPU thread; caches "
         "not flushed";
}

absl::StatusOr<kernels::Comparison> CpuWorkload::CompareWithReference(
    const kernels::ElementTolerance& tolerance) {
  return kernels::Compare(output_, Reference(), tolerance);
}

absl::Status CpuWorkload::Read(proto::ops::OutputBuffer buffer, int64_t first,
                               std::span<float> out) {
  if (first < 0 || first + int64_t(out.size()) > int64_t(output_.size()))
    return absl::InvalidArgumentError(absl::StrCat("elements [", first, ", ",
                                                   first + int64_t(out.size()),
                                                   ") are outside the output of ", output_.size()));
  const HostBuffer& from = buffer == proto::ops::OutputBuffer::kOutput ? output_ : Reference();
  std::copy_n(from.begin() + first, out.size(), out.begin());
  return absl::OkStatus();
}

absl::Status CpuWorkload::FillInputs(uint64_t seed, const GoOn& go_on) {
  for (auto [stream, input] : Inputs())
    KBENCH_RETURN_IF_ERROR(FillSeededInput(seed, stream, input, go_on));
  reference_.clear();
  return absl::OkStatus();
}

absl::Status CpuWorkload::Redraw(uint64_t seed) {
  return FillInputs(seed, [] { return absl::OkStatus(); });
}

const HostBuffer& CpuWorkload::Reference() {
  if (reference_.empty()) {
    reference_.resize(output_.size());
    RunReference(reference_);
  }
  return reference_;
}

}  // namespace kbench::server::worker::backends::cpu
