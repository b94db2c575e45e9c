#include "server/worker/backends/cuda/cuda_workload.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/comparison_kernel.h"
#include "kernels/cuda/comparison_partials.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "server/worker/backends/cuda/printf_capture.h"

namespace kbench::server::worker::backends::cuda {

using kernels::cuda::ComparisonPartial;

CudaWorkload::CudaWorkload(std::shared_ptr<DeviceContext> context, kernels::DType input_dtype,
                           kernels::DType output_dtype, int64_t elements,
                           kernels::cuda_runtime::DeviceBuffer output,
                           kernels::cuda_runtime::SampleTimer timer)
    : context_(std::move(context)),
      input_dtype_(input_dtype),
      output_dtype_(output_dtype),
      elements_(elements),
      output_(std::move(output)),
      timer_(std::move(timer)) {}

absl::Status CudaWorkload::PoisonOutput() {
  return Guarded([&]() -> absl::Status {
    KBENCH_RETURN_IF_ERROR(EnqueuePoison(stream()));
    return context_->stream.Synchronize();
  });
}

absl::Status CudaWorkload::EnqueuePoison(cudaStream_t stream) {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(output_.get(), 0xFF, output_.bytes(), stream));
  return absl::OkStatus();
}

absl::StatusOr<kernels::cuda_runtime::DeviceBuffer> CudaWorkload::OutputWithGuard(size_t bytes) {
  return kernels::cuda_runtime::DeviceBuffer::Allocate(bytes + kOutputGuardBytes);
}

absl::StatusOr<uint64_t> CudaWorkload::GuardBytesWritten() {
  const size_t output_bytes = size_t(elements_) * size_t(kernels::DTypeBytes(output_dtype_));
  if (output_.bytes() < output_bytes + kOutputGuardBytes) return uint64_t{0};
  std::vector<unsigned char> guard(kOutputGuardBytes);
  KBENCH_RETURN_IF_ERROR(Guarded([&]() -> absl::Status {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(guard.data(),
                                                static_cast<char*>(output_.get()) + output_bytes,
                                                guard.size(), cudaMemcpyDeviceToHost, stream()));
    return context_->stream.Synchronize();
  }));
  uint64_t written = 0;
  for (unsigned char byte : guard) written += byte != 0xFF;
  return written;
}

absl::StatusOr<std::vector<CudaWorkload::ChangedInput>> CudaWorkload::InputsChanged() {
  std::vector<ChangedInput> changed;
  if (!input_seed_) return changed;
  KBENCH_RETURN_IF_ERROR(Guarded([&]() -> absl::Status {
    if (changed_count_.get() == nullptr) {
      KBENCH_ASSIGN_OR_RETURN(changed_count_, kernels::cuda_runtime::DeviceBuffer::Allocate(
                                                  sizeof(unsigned long long)));
    }
    auto* count = static_cast<unsigned long long*>(changed_count_.get());
    for (const SeededInput& input : Inputs()) {
      KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(count, 0, sizeof(*count), stream()));
      KBENCH_CUDA_RETURN_IF_ERROR(
          kernels::cuda::LaunchCountSeededChanges(input_dtype_, *input_seed_, input.stream, 0,
                                                  input.data, input.elements, count, stream()));
      unsigned long long elements = 0;
      KBENCH_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(&elements, count, sizeof(elements), cudaMemcpyDeviceToHost, stream()));
      KBENCH_RETURN_IF_ERROR(context_->stream.Synchronize());
      if (elements > 0) changed.push_back({kernels::InputStreamName(input.stream), elements});
    }
    // Drawn again, so the next variant's run meets them as drawn and what
    // this one changed is not blamed on it.
    return changed.empty() ? absl::OkStatus() : FillInputs(*input_seed_);
  }));
  return changed;
}

absl::Status CudaWorkload::LoadKernels(const Problem& problem) {
  builtins_ = int(problem.variants.size());
  if (problem.kernels.empty()) return absl::OkStatus();
  const proto::ops::KernelAbi* abi = problem.op->kernel_abi();
  const std::vector<void*> buffers = KernelBuffers();
  if (abi == nullptr || buffers.empty())
    return absl::InvalidArgumentError(absl::StrCat("kernels: this CUDA workload of ",
                                                   std::string(problem.op->name()),
                                                   " runs no learners' kernels"));
  return Guarded([&]() -> absl::Status {
    for (size_t i = 0; i < problem.kernels.size(); ++i) {
      const LearnerKernel& kernel = problem.kernels[i];
      KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<proto::ops::KernelArgumentPack> arguments,
                              proto::ops::KernelArgumentPack::Make(*abi, problem.request, buffers));
      KBENCH_ASSIGN_OR_RETURN(
          std::unique_ptr<LearnerLaunch> launch,
          LearnerLaunch::Load(absl::StrCat("kernels[", i, "] '", kernel.name, "'"), kernel,
                              context_->ordinal, std::move(arguments)));
      learners_.push_back(std::move(launch));
      warmup_printed_.emplace_back();
    }
    return absl::OkStatus();
  });
}

LearnerLaunch* CudaWorkload::LearnerOf(int variant) const {
  if (variant < builtins_ || variant - builtins_ >= int(learners_.size())) return nullptr;
  return learners_[size_t(variant - builtins_)].get();
}

absl::Status CudaWorkload::EnqueueVariant(int variant, cudaStream_t stream) {
  if (LearnerLaunch* learner = LearnerOf(variant)) return learner->Enqueue(stream);
  return Enqueue(variant, stream);
}

std::string CudaWorkload::VariantConfig(int variant) const {
  if (const LearnerLaunch* learner = LearnerOf(variant)) return learner->Config();
  return BuiltinConfig(variant);
}

absl::Status CudaWorkload::Run(int variant) {
  return Guarded([&]() -> absl::Status {
    KBENCH_RETURN_IF_ERROR(EnqueueVariant(variant, stream()));
    return context_->stream.Synchronize();
  });
}

absl::StatusOr<double> CudaWorkload::TimeSample(int variant, v1::TimingMode mode) {
  KBENCH_RETURN_IF_ERROR(context_->Enter());
  auto enqueue = [&](cudaStream_t s) { return EnqueueVariant(variant, s); };
  auto poison = [&](cudaStream_t s) { return EnqueuePoison(s); };
  if (mode != v1::TIMING_MODE_HOT) return context_->Track(timer_.Cold(enqueue));
  return context_->Track(learners_.empty() ? timer_.Hot(variant, enqueue)
                                           : timer_.HotPoisoned(variant, poison, enqueue));
}

std::string CudaWorkload::TimingMethod(v1::TimingMode mode) const {
  if (mode != v1::TIMING_MODE_HOT) return timer_.ColdMethod();
  return learners_.empty() ? timer_.HotMethod() : timer_.HotPoisonedMethod();
}

absl::Status CudaWorkload::FillInputs(uint64_t seed) {
  for (const SeededInput& input : Inputs())
    KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(
        input_dtype_, seed, input.stream, 0, input.data, input.elements, stream()));
  input_seed_ = seed;
  reference_.clear();
  return context_->stream.Synchronize();
}

absl::Status CudaWorkload::Redraw(uint64_t seed) {
  return Guarded([&]() -> absl::Status {
    // Nothing runs on the stream here: every call waits for it.
    for (size_t i = 0; i < learners_.size(); ++i) {
      // The hot graph launches the old module's function: it goes first.
      timer_.Recapture(builtins_ + int(i));
      KBENCH_RETURN_IF_ERROR(learners_[i]->Reload());
      // Its first launch, untimed, on the inputs it has already seen.
      KBENCH_RETURN_IF_ERROR(learners_[i]->Enqueue(stream()));
      KBENCH_RETURN_IF_ERROR(context_->stream.Synchronize());
      KeepPrinted(i);
    }
    return FillInputs(seed);
  });
}

void CudaWorkload::KeepPrinted(size_t learner) {
  PrintfCapture* capture = PrintfCapture::Active();
  if (capture == nullptr) return;
  Printed& kept = warmup_printed_[learner];
  PrintfCapture::Taken taken = capture->Take(kPrintfFifoBytes - kept.text.size());
  kept.text += taken.text;
  kept.bytes += taken.bytes;
}

Workload::Printed CudaWorkload::TakePrinted(int variant, size_t max_bytes) {
  PrintfCapture* capture = PrintfCapture::Active();
  if (capture == nullptr || LearnerOf(variant) == nullptr) return {};
  Printed printed = std::exchange(warmup_printed_[size_t(variant - builtins_)], {});
  printed.text.resize(std::min(printed.text.size(), max_bytes));
  PrintfCapture::Taken taken = capture->Take(max_bytes - printed.text.size());
  printed.text += taken.text;
  printed.bytes += taken.bytes;
  return printed;
}

absl::Status CudaWorkload::ForgetOnDevice(kernels::cuda_runtime::DeviceBuffer& buffer) {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(buffer.get(), 0, buffer.bytes(), stream()));
  KBENCH_RETURN_IF_ERROR(context_->stream.Synchronize());
  buffer = kernels::cuda_runtime::DeviceBuffer();
  return absl::OkStatus();
}

absl::Status CudaWorkload::EnsureReference() {
  if (!reference_.empty()) return absl::OkStatus();
  KBENCH_ASSIGN_OR_RETURN(
      kernels::cuda_runtime::DeviceBuffer reference,
      kernels::cuda_runtime::DeviceBuffer::Allocate(size_t(elements_) * sizeof(float)));
  std::vector<float> host(static_cast<size_t>(elements_));
  KBENCH_RETURN_IF_ERROR(EnqueueReference(reference.as<float>(), stream()));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host.data(), reference.get(), reference.bytes(),
                                              cudaMemcpyDeviceToHost, stream()));
  KBENCH_RETURN_IF_ERROR(ForgetOnDevice(reference));
  reference_ = std::move(host);
  return absl::OkStatus();
}

absl::StatusOr<kernels::cuda_runtime::DeviceBuffer> CudaWorkload::ReferenceOnDevice() {
  KBENCH_RETURN_IF_ERROR(EnsureReference());
  KBENCH_ASSIGN_OR_RETURN(
      kernels::cuda_runtime::DeviceBuffer reference,
      kernels::cuda_runtime::DeviceBuffer::Allocate(reference_.size() * sizeof(float)));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(reference.get(), reference_.data(), reference.bytes(),
                                              cudaMemcpyHostToDevice, stream()));
  return reference;
}

absl::StatusOr<kernels::Comparison> CudaWorkload::CompareWithReference(
    const kernels::ElementTolerance& tolerance) {
  const int blocks = kernels::cuda::ComparisonBlocks(elements_);
  std::vector<ComparisonPartial> partials(static_cast<size_t>(blocks));
  KBENCH_RETURN_IF_ERROR(Guarded([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer reference, ReferenceOnDevice());
    if (partials_.get() == nullptr) {
      KBENCH_ASSIGN_OR_RETURN(partials_, kernels::cuda_runtime::DeviceBuffer::Allocate(
                                             partials.size() * sizeof(ComparisonPartial)));
    }
    KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchCompare(
        output_dtype_, output_.get(), reference.as<float>(), elements_, tolerance.atol,
        tolerance.rtol, partials_.as<ComparisonPartial>(), stream()));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(partials.data(), partials_.get(),
                                                partials.size() * sizeof(ComparisonPartial),
                                                cudaMemcpyDeviceToHost, stream()));
    return ForgetOnDevice(reference);
  }));
  return kernels::cuda::MergePartials(partials);
}

absl::Status CudaWorkload::Read(proto::ops::OutputBuffer buffer, int64_t first,
                                std::span<float> out) {
  if (first < 0 || first + int64_t(out.size()) > elements_)
    return absl::InvalidArgumentError(absl::StrCat("Read: elements [", first, ", ",
                                                   first + int64_t(out.size()),
                                                   ") are outside the output of ", elements_));
  if (buffer == proto::ops::OutputBuffer::kReference) {
    KBENCH_RETURN_IF_ERROR(Guarded([&] { return EnsureReference(); }));
    std::copy_n(reference_.begin() + first, out.size(), out.begin());
    return absl::OkStatus();
  }
  const int bytes = kernels::DTypeBytes(output_dtype_);
  std::vector<uint16_t> bits(bytes == 4 ? 0 : out.size());
  KBENCH_RETURN_IF_ERROR(Guarded([&]() -> absl::Status {
    const char* source = static_cast<const char*>(output_.get()) + first * bytes;
    void* target = bits.empty() ? static_cast<void*>(out.data()) : bits.data();
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(target, source, out.size() * size_t(bytes),
                                                cudaMemcpyDeviceToHost, stream()));
    return context_->stream.Synchronize();
  }));
  if (output_dtype_ == kernels::DType::kFp16 && !bits.empty()) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = kernels::HalfBitsToFloat(bits[i]);
  } else if (output_dtype_ == kernels::DType::kBf16 && !bits.empty()) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = kernels::Bf16BitsToFloat(bits[i]);
  }
  return absl::OkStatus();
}

}  // namespace kbench::server::worker::backends::cuda
