#include "tests/fake_device.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "kernels/reference.h"

namespace kbench::testing {

class FakeWorkload final : public server::Workload {
 public:
  FakeWorkload(FakeDevice& device, const server::VectorAddProblem& problem)
      : device_(device), problem_(problem), output_(problem.n) {
    for (const auto& name : problem.variants)
      for (const auto& [n, v] : device.variants_)
        if (n == name) variants_.push_back(v);
  }
  absl::Status PoisonOutput() override {
    std::fill(output_.begin(), output_.end(), std::numeric_limits<float>::quiet_NaN());
    return absl::OkStatus();
  }
  absl::Status Run(int variant) override {
    Sleep();
    const FakeVariant& v = variants_[variant];
    if (v.breaks_device) {
      device_.healthy_ = false;
      return absl::InternalError("fake sticky error: the device is unusable");
    }
    if (!v.writes) return absl::OkStatus();
    for (int64_t i = 0; i < problem_.n; ++i)
      output_[i] = float(kernels::VectorAddReference(problem_.seed, problem_.dtype, i)) +
                   (v.correct ? 0.0f : 1.0f);
    return absl::OkStatus();
  }
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode) override {
    Sleep();
    device_.RecordTimed(problem_.variants[variant]);
    // A small jitter, the same for every variant of a round: -0.1%, 0, +0.1%.
    const int k = calls_[variant]++;
    return variants_[variant].ms * (1.0 + 0.001 * double(k % 3 - 1));
  }
  absl::StatusOr<std::span<const float>> Output() override {
    return std::span<const float>(output_);
  }
  std::string TimingMethod(v1::TimingMode) const override { return "fake clock"; }

 private:
  void Sleep() {
    if (device_.sleep_ms_ > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(device_.sleep_ms_));
  }
  FakeDevice& device_;
  server::VectorAddProblem problem_;
  std::vector<FakeVariant> variants_;
  std::vector<float> output_;
  std::map<int, int> calls_;
};

FakeDevice::FakeDevice(std::vector<std::pair<std::string, FakeVariant>> variants,
                       double sleep_ms, double copy_gbps)
    : variants_(std::move(variants)), sleep_ms_(sleep_ms), copy_gbps_(copy_gbps) {}

v1::DeviceInfo FakeDevice::Info() const {
  v1::DeviceInfo info;
  info.set_backend("fake");
  info.set_name("fake device");
  info.set_copy_bandwidth_gbps(copy_gbps_);
  info.set_healthy(true);
  return info;
}

std::vector<v1::OpInfo> FakeDevice::Ops() const {
  v1::OpInfo op;
  op.set_op("vector_add");
  for (const auto& [name, v] : variants_) op.add_variants(name);
  op.add_dtypes(v1::DTYPE_FP32);
  return {op};
}

absl::StatusOr<std::unique_ptr<server::Workload>> FakeDevice::PrepareVectorAdd(
    const server::VectorAddProblem& problem) {
  return std::make_unique<FakeWorkload>(*this, problem);
}

absl::StatusOr<std::unique_ptr<server::Workload>> FakeDevice::PrepareAttention(
    const server::AttentionProblem&) {
  return absl::UnimplementedError("the fake device runs vector add only");
}

server::ClockReading FakeDevice::ReadClock() { return {true, 1980.0, false}; }

std::vector<std::string> FakeDevice::timed() const {
  std::lock_guard lock(mu_);
  return timed_;
}

void FakeDevice::RecordTimed(const std::string& variant) {
  std::lock_guard lock(mu_);
  timed_.push_back(variant);
  ++timed_count_;
}

}  // namespace kbench::testing
