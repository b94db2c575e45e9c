#include "tests/fake_device.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/seeded_input.h"
#include "kernels/vector_add/reference.h"
#include "kernels/vector_add/simple_reference.h"

namespace kbench::testing {

class FakeWorkload final : public server::worker::Workload {
 public:
  FakeWorkload(FakeDevice& device, const server::Problem& problem)
      : device_(device),
        n_(int64_t(problem.request.vector_add().n())),
        seed_(problem.request.seed()),
        first_seed_(seed_),
        dtype_(problem.dtype),
        output_(size_t(n_)) {
    // A variant the device was not given is a default one (1 ms, correct).
    for (size_t i = 0; i < problem.VariantCount(); ++i) {
      names_.push_back(problem.VariantName(i));
      variants_.push_back(FakeVariant{});
      for (const auto& [name, v] : device.variants_)
        if (name == names_.back()) variants_.back() = v;
    }
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
    Write(v, v.correct);
    computed_for_[variant] = seed_;
    return absl::OkStatus();
  }
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode) override {
    Sleep();
    const FakeVariant& v = variants_[variant];
    device_.RecordTimed(names_[variant]);
    const bool poisoned = std::isnan(output_[0]);
    if ((v.skips_unless_poisoned && !poisoned) ||
        (v.caches_by_inputs && computed_for_[variant] == seed_)) {
      if (v.caches_by_inputs) Write(v, v.correct);  // the same values again
      return testing::kShortcutMs;
    }
    Write(v, v.correct && !v.wrong_when_timed);
    computed_for_[variant] = seed_;
    // A small jitter, the same for every variant of a round: -0.1%, 0, +0.1%.
    const int k = calls_[variant]++;
    return v.ms * (1.0 + 0.001 * double(k % 3 - 1));
  }
  std::string TimingMethod(v1::TimingMode) const override { return "fake clock"; }
  absl::StatusOr<kernels::Comparison> CompareWithReference(
      const kernels::ElementTolerance& tolerance) override {
    return kernels::Compare(output_, Reference(), tolerance);
  }
  Printed TakePrinted(int /*variant*/, size_t max_bytes) override {
    Printed taken{printed_.substr(0, max_bytes), printed_.size()};
    printed_.clear();
    return taken;
  }
  absl::Status Redraw(uint64_t seed) override {
    {
      std::lock_guard lock(device_.mu_);
      device_.redraws_.push_back(seed);
    }
    seed_ = seed;
    reference_.clear();
    return absl::OkStatus();
  }
  absl::Status Read(proto::ops::OutputBuffer buffer, int64_t first, std::span<float> out) override {
    const std::vector<float>& from =
        buffer == proto::ops::OutputBuffer::kOutput ? output_ : Reference();
    std::copy_n(from.begin() + first, out.size(), out.begin());
    return absl::OkStatus();
  }

 private:
  void Write(const FakeVariant& v, bool correct) {
    printed_ += v.prints;
    if (!v.writes) return;
    const uint64_t seed = v.keeps_first_output ? first_seed_ : seed_;
    for (int64_t i = 0; i < n_; ++i)
      output_[i] =
          float(kernels::VectorAddReference(seed, dtype_, uint64_t(i))) + (correct ? 0.0f : 1.0f);
  }
  const std::vector<float>& Reference() {
    if (reference_.empty()) {
      std::vector<float> a(n_), b(n_);
      for (int64_t i = 0; i < n_; ++i) {
        a[i] = kernels::RoundTo(dtype_, kernels::SeededValue(seed_, kernels::InputStream::kA, i));
        b[i] = kernels::RoundTo(dtype_, kernels::SeededValue(seed_, kernels::InputStream::kB, i));
      }
      reference_.resize(n_);
      kernels::VectorAddSimpleReference(a.data(), b.data(), reference_.data(), n_);
    }
    return reference_;
  }
  void Sleep() {
    if (device_.sleep_ms_ > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(device_.sleep_ms_));
  }
  FakeDevice& device_;
  const int64_t n_;
  uint64_t seed_;  // of the inputs now (Redraw changes it)
  const uint64_t first_seed_;
  const kernels::DType dtype_;
  std::vector<std::string> names_;
  std::vector<FakeVariant> variants_;
  std::vector<float> output_;
  std::vector<float> reference_;
  std::string printed_;  // since the last TakePrinted
  std::map<int, int> calls_;
  std::map<int, uint64_t> computed_for_;  // the seed of each variant's last computed output
};

FakeDevice::FakeDevice(std::vector<std::pair<std::string, FakeVariant>> variants, double sleep_ms,
                       double copy_gbps, uint32_t index)
    : variants_(std::move(variants)), sleep_ms_(sleep_ms), copy_gbps_(copy_gbps), index_(index) {}

v1::DeviceInfo FakeDevice::Info() const {
  v1::DeviceInfo info;
  info.set_backend("cpu");
  info.set_name(absl::StrCat("fake device ", index_));
  info.set_index(index_);
  info.set_copy_bandwidth_gbps(copy_gbps_);
  info.set_healthy(healthy_);
  return info;
}

absl::StatusOr<std::unique_ptr<server::worker::Workload>> FakeDevice::Prepare(
    const server::Problem& problem, const server::worker::GoOn& go_on) {
  KBENCH_RETURN_IF_ERROR(go_on());
  if (problem.op->problem_case() != v1::RunRequest::kVectorAdd)
    return absl::UnimplementedError("the fake device runs vector add only");
  return std::make_unique<FakeWorkload>(*this, problem);
}

void FakeDevice::StartClockWatch() {
  if (watching_) ++out_of_turn_;
  watching_ = true;
}

server::worker::ClockReading FakeDevice::StopClockWatch() {
  if (!watching_) ++out_of_turn_;
  watching_ = false;
  return clock_script_[clock_reads_++ % clock_script_.size()];
}

void FakeDevice::SetClockScript(std::vector<server::worker::ClockReading> script) {
  clock_script_ = std::move(script);
}

std::vector<uint64_t> FakeDevice::redraws() const {
  std::lock_guard lock(mu_);
  return redraws_;
}

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
