#include "server/backends/cuda/cuda_workload.h"

#include <utility>

#include "server/cuda_runtime/cuda_status.h"
#include "server/status_macros.h"

namespace kbench::server::cuda_backend {

CudaWorkload::CudaWorkload(std::shared_ptr<DeviceContext> context,
                           kernels::DType dtype, int64_t elements,
                           cuda::DeviceBuffer output, cuda::SampleTimer timer)
    : context_(std::move(context)),
      dtype_(dtype),
      elements_(elements),
      output_(std::move(output)),
      timer_(std::move(timer)) {}

absl::Status CudaWorkload::PoisonOutput() {
  return Guarded([&]() -> absl::Status {
    KBENCH_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(output_.get(), 0xFF, output_.bytes(), stream()));
    return context_->stream.Synchronize();
  });
}

absl::Status CudaWorkload::Run(int variant) {
  return Guarded([&]() -> absl::Status {
    KBENCH_RETURN_IF_ERROR(Enqueue(variant, stream()));
    return context_->stream.Synchronize();
  });
}

absl::StatusOr<double> CudaWorkload::TimeSample(int variant,
                                                v1::TimingMode mode) {
  KBENCH_RETURN_IF_ERROR(context_->Enter());
  auto enqueue = [&](cudaStream_t s) { return Enqueue(variant, s); };
  return context_->Track(mode == v1::TIMING_MODE_HOT
                             ? timer_.Hot(variant, enqueue)
                             : timer_.Cold(enqueue));
}

absl::StatusOr<std::span<const float>> CudaWorkload::Output() {
  const size_t n = size_t(elements_);
  auto copy = [&]() -> absl::Status {
    host_.resize(n);
    void* staging = host_.data();
    if (dtype_ != kernels::DType::kFp32) {
      bits_.resize(n);
      staging = bits_.data();
    }
    KBENCH_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(staging, output_.get(), output_.bytes(),
                        cudaMemcpyDeviceToHost, stream()));
    return context_->stream.Synchronize();
  };
  KBENCH_RETURN_IF_ERROR(Guarded(copy));
  if (dtype_ == kernels::DType::kFp16) {
    for (size_t i = 0; i < n; ++i)
      host_[i] = kernels::HalfBitsToFloat(bits_[i]);
  } else if (dtype_ == kernels::DType::kBf16) {
    for (size_t i = 0; i < n; ++i)
      host_[i] = kernels::Bf16BitsToFloat(bits_[i]);
  }
  return std::span<const float>(host_);
}

std::string CudaWorkload::TimingMethod(v1::TimingMode mode) const {
  return mode == v1::TIMING_MODE_HOT ? timer_.HotMethod() : timer_.ColdMethod();
}

}  // namespace kbench::server::cuda_backend
