#include "server/cpu_device.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu_attention.h"
#include "kernels/cpu_vector_add.h"
#include "kernels/seeded_input.h"

namespace kbench::server {
namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size())
        return line.substr(colon + 2);
    }
  }
  return "CPU";
}

// Bytes read + written per second by memcpy of 256 MiB, best of 3.
double MeasureCopyBandwidthGbps() {
  constexpr size_t kBytes = size_t(256) << 20;
  std::vector<char> src(kBytes, 1), dst(kBytes, 0);
  double best_ms = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    std::memcpy(dst.data(), src.data(), kBytes);
    best_ms = std::min(best_ms, MillisecondsSince(start));
  }
  return 2.0 * double(kBytes) / (best_ms * 1e-3) / 1e9;
}

constexpr char kHostTiming[] =
    "host steady_clock around the kernel call on one CPU thread; caches not "
    "flushed";

class CpuWorkload : public Workload {
 public:
  explicit CpuWorkload(size_t output_elements)
      : output_(output_elements) {}

  absl::Status PoisonOutput() override {
    std::fill(output_.begin(), output_.end(),
              std::numeric_limits<float>::quiet_NaN());
    return absl::OkStatus();
  }
  absl::Status Run(int variant) override {
    RunVariant(variant);
    return absl::OkStatus();
  }
  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode) override {
    const auto start = Clock::now();
    RunVariant(variant);
    return MillisecondsSince(start);
  }
  absl::StatusOr<std::span<const float>> Output() override {
    return std::span<const float>(output_);
  }
  std::string TimingMethod(v1::TimingMode) const override { return kHostTiming; }

 protected:
  virtual void RunVariant(int variant) = 0;
  std::vector<float> output_;
};

class CpuVectorAdd final : public CpuWorkload {
 public:
  explicit CpuVectorAdd(const VectorAddProblem& problem)
      : CpuWorkload(problem.n), a_(problem.n), b_(problem.n) {
    using kernels::InputStream;
    kernels::FillSeeded(problem.seed, InputStream::kA, 0, problem.n, a_.data());
    kernels::FillSeeded(problem.seed, InputStream::kB, 0, problem.n, b_.data());
    for (const auto& name : problem.variants)
      vectorized_.push_back(name == "vectorized");
  }

 private:
  void RunVariant(int variant) override {
    const int64_t n = int64_t(a_.size());
    if (vectorized_[variant]) {
      kernels::VectorAddVectorizedCpu(a_.data(), b_.data(), output_.data(), n);
    } else {
      kernels::VectorAddNaiveCpu(a_.data(), b_.data(), output_.data(), n);
    }
  }
  std::vector<float> a_, b_;
  std::vector<bool> vectorized_;
};

class CpuAttention final : public CpuWorkload {
 public:
  explicit CpuAttention(const AttentionProblem& problem)
      : CpuWorkload(problem.shape.TensorElements()), shape_(problem.shape) {
    using kernels::InputStream;
    const int64_t count = shape_.TensorElements();
    q_.resize(count);
    k_.resize(count);
    v_.resize(count);
    kernels::FillSeeded(problem.seed, InputStream::kQ, 0, count, q_.data());
    kernels::FillSeeded(problem.seed, InputStream::kK, 0, count, k_.data());
    kernels::FillSeeded(problem.seed, InputStream::kV, 0, count, v_.data());
    for (const auto& name : problem.variants) {
      fused_.push_back(name == "fused");
      if (name == "naive") scores_.resize(shape_.ScoreElements());
    }
  }

 private:
  void RunVariant(int variant) override {
    if (fused_[variant]) {
      kernels::AttentionFusedCpu(shape_, q_.data(), k_.data(), v_.data(),
                                 output_.data());
    } else {
      kernels::AttentionNaiveCpu(shape_, q_.data(), k_.data(), v_.data(),
                                 scores_.data(), output_.data());
    }
  }
  kernels::AttentionShape shape_;
  std::vector<float> q_, k_, v_, scores_;
  std::vector<bool> fused_;
};

class CpuDevice final : public Device {
 public:
  CpuDevice() : name_(CpuModelName()), copy_gbps_(MeasureCopyBandwidthGbps()) {}

  v1::DeviceInfo Info() const override {
    v1::DeviceInfo info;
    info.set_backend("cpu");
    info.set_name(name_);
    info.set_index(0);
    info.set_copy_bandwidth_gbps(copy_gbps_);
    info.set_healthy(true);
    return info;
  }
  std::vector<v1::OpInfo> Ops() const override {
    v1::OpInfo vector_add;
    vector_add.set_op("vector_add");
    vector_add.add_variants("naive");
    vector_add.add_variants("vectorized");
    vector_add.add_dtypes(v1::DTYPE_FP32);
    v1::OpInfo attention;
    attention.set_op("attention");
    attention.add_variants("naive");
    attention.add_variants("fused");
    attention.add_dtypes(v1::DTYPE_FP32);
    return {vector_add, attention};
  }
  bool Healthy() const override { return true; }

  absl::StatusOr<std::unique_ptr<Workload>> PrepareVectorAdd(
      const VectorAddProblem& problem) override {
    return std::make_unique<CpuVectorAdd>(problem);
  }
  absl::StatusOr<std::unique_ptr<Workload>> PrepareAttention(
      const AttentionProblem& problem) override {
    return std::make_unique<CpuAttention>(problem);
  }
  ClockReading ReadClock() override { return {}; }

 private:
  std::string name_;
  double copy_gbps_;
};

}  // namespace

std::unique_ptr<Device> MakeCpuDevice() { return std::make_unique<CpuDevice>(); }

}  // namespace kbench::server
