#include "server/cuda/vector_add_workload.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda/vector_add.h"
#include "server/cuda/cuda_status.h"
#include "server/cuda/device_buffer.h"
#include "server/cuda/sample_timer.h"

namespace kbench::server::cuda {
namespace {

enum class Variant { kNaive, kVectorized };

absl::StatusOr<std::vector<Variant>> ParseVariants(
    const std::vector<std::string>& names) {
  std::vector<Variant> variants;
  for (const std::string& name : names) {
    if (name == kVectorAddNaive) {
      variants.push_back(Variant::kNaive);
    } else if (name == kVectorAddVectorized) {
      variants.push_back(Variant::kVectorized);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("variants: vector_add on CUDA runs ", kVectorAddNaive,
                       " and ", kVectorAddVectorized, ", not '", name, "'"));
    }
  }
  return variants;
}

class CudaVectorAdd final : public Workload {
 public:
  CudaVectorAdd(std::shared_ptr<DeviceContext> context, int64_t n,
                std::vector<Variant> variants, DeviceBuffer a, DeviceBuffer b,
                DeviceBuffer c, SampleTimer timer)
      : context_(std::move(context)),
        n_(n),
        variants_(std::move(variants)),
        a_(std::move(a)),
        b_(std::move(b)),
        c_(std::move(c)),
        timer_(std::move(timer)) {}

  absl::Status PoisonOutput() override {
    return Guarded([&]() -> absl::Status {
      // All bytes 0xFF: the fp32 pattern 0xFFFFFFFF is a NaN.
      KBENCH_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(c_.get(), 0xFF, c_.bytes(), stream()));
      return context_->stream.Synchronize();
    });
  }

  absl::Status Run(int variant) override {
    return Guarded([&]() -> absl::Status {
      if (absl::Status s = Enqueue(variant, stream()); !s.ok()) return s;
      return context_->stream.Synchronize();
    });
  }

  absl::StatusOr<double> TimeSample(int variant, v1::TimingMode mode) override {
    if (absl::Status s = context_->Enter(); !s.ok()) return s;
    auto enqueue = [&](cudaStream_t s) { return Enqueue(variant, s); };
    return context_->Track(mode == v1::TIMING_MODE_HOT
                               ? timer_.Hot(variant, enqueue)
                               : timer_.Cold(enqueue));
  }

  absl::StatusOr<std::span<const float>> Output() override {
    absl::Status copied = Guarded([&]() -> absl::Status {
      host_.resize(size_t(n_));
      KBENCH_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(host_.data(), c_.get(), c_.bytes(),
                          cudaMemcpyDeviceToHost, stream()));
      return context_->stream.Synchronize();
    });
    if (!copied.ok()) return copied;
    return std::span<const float>(host_);
  }

  std::string TimingMethod(v1::TimingMode mode) const override {
    return timer_.Method(mode);
  }

 private:
  cudaStream_t stream() const { return context_->stream.get(); }

  // Enters the device, runs `body`, and tracks its result for sticky errors.
  template <typename F>
  absl::Status Guarded(F body) {
    if (absl::Status s = context_->Enter(); !s.ok()) return s;
    return context_->Track(body());
  }

  absl::Status Enqueue(int variant, cudaStream_t stream) const {
    const float* a = a_.as<float>();
    const float* b = b_.as<float>();
    float* c = c_.as<float>();
    if (variants_.at(variant) == Variant::kNaive) {
      KBENCH_CUDA_RETURN_IF_ERROR(
          kernels::cuda::LaunchVectorAddNaive(a, b, c, n_, stream));
    } else {
      KBENCH_CUDA_RETURN_IF_ERROR(
          kernels::cuda::LaunchVectorAddVectorized(a, b, c, n_, stream));
    }
    return absl::OkStatus();
  }

  std::shared_ptr<DeviceContext> context_;
  const int64_t n_;
  const std::vector<Variant> variants_;
  DeviceBuffer a_, b_, c_;
  SampleTimer timer_;
  std::vector<float> host_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaVectorAdd(
    std::shared_ptr<DeviceContext> context, const VectorAddProblem& problem) {
  if (problem.dtype != kernels::DType::kFp32) {
    return absl::InvalidArgumentError(
        "dtype: vector_add on CUDA runs fp32 only");
  }
  if (problem.n < 1) {
    return absl::InvalidArgumentError("n: must be at least 1");
  }
  if (uint64_t(problem.n) > std::numeric_limits<size_t>::max() / 16) {
    return absl::InvalidArgumentError(
        absl::StrCat("n: ", problem.n, " elements do not fit in memory"));
  }
  absl::StatusOr<std::vector<Variant>> variants =
      ParseVariants(problem.variants);
  if (!variants.ok()) return variants.status();

  const size_t bytes = size_t(problem.n) * sizeof(float);
  absl::StatusOr<DeviceBuffer> a = DeviceBuffer::Allocate(bytes);
  if (!a.ok()) return a.status();
  absl::StatusOr<DeviceBuffer> b = DeviceBuffer::Allocate(bytes);
  if (!b.ok()) return b.status();
  absl::StatusOr<DeviceBuffer> c = DeviceBuffer::Allocate(bytes);
  if (!c.ok()) return c.status();

  const cudaStream_t stream = context->stream.get();
  using kernels::InputStream;
  KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(
      problem.seed, InputStream::kA, 0, a->as<float>(), problem.n, stream));
  KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(
      problem.seed, InputStream::kB, 0, b->as<float>(), problem.n, stream));
  if (absl::Status s = context->stream.Synchronize(); !s.ok()) return s;

  absl::StatusOr<SampleTimer> timer =
      SampleTimer::Create(stream, &context->flusher);
  if (!timer.ok()) return timer.status();
  return std::make_unique<CudaVectorAdd>(
      std::move(context), problem.n, *std::move(variants), *std::move(a),
      *std::move(b), *std::move(c), *std::move(timer));
}

}  // namespace kbench::server::cuda
