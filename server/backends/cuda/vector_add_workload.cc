#include "server/backends/cuda/vector_add_workload.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda/vector_add.h"
#include "server/backends/cuda/cuda_workload.h"
#include "server/cuda_runtime/cuda_status.h"
#include "server/cuda_runtime/device_buffer.h"
#include "server/cuda_runtime/sample_timer.h"
#include "server/status_macros.h"

namespace kbench::server::cuda_backend {
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

class CudaVectorAdd final : public CudaWorkload {
 public:
  CudaVectorAdd(std::shared_ptr<DeviceContext> context, int64_t n,
                std::vector<Variant> variants, cuda::DeviceBuffer a,
                cuda::DeviceBuffer b, cuda::DeviceBuffer c,
                cuda::SampleTimer timer)
      : CudaWorkload(std::move(context), kernels::DType::kFp32, n, std::move(c),
                     std::move(timer)),
        n_(n),
        variants_(std::move(variants)),
        a_(std::move(a)),
        b_(std::move(b)) {}

 private:
  absl::Status Enqueue(int variant, cudaStream_t stream) override {
    const float* a = a_.as<float>();
    const float* b = b_.as<float>();
    float* c = static_cast<float*>(output());
    if (variants_.at(variant) == Variant::kNaive) {
      KBENCH_CUDA_RETURN_IF_ERROR(
          kernels::cuda::LaunchVectorAddNaive(a, b, c, n_, stream));
    } else {
      KBENCH_CUDA_RETURN_IF_ERROR(
          kernels::cuda::LaunchVectorAddVectorized(a, b, c, n_, stream));
    }
    return absl::OkStatus();
  }

  const int64_t n_;
  const std::vector<Variant> variants_;
  cuda::DeviceBuffer a_, b_;
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
  KBENCH_ASSIGN_OR_RETURN(std::vector<Variant> variants,
                          ParseVariants(problem.variants));

  const size_t bytes = size_t(problem.n) * sizeof(float);
  KBENCH_ASSIGN_OR_RETURN(cuda::DeviceBuffer a,
                          cuda::DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(cuda::DeviceBuffer b,
                          cuda::DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(cuda::DeviceBuffer c,
                          cuda::DeviceBuffer::Allocate(bytes));

  const cudaStream_t stream = context->stream.get();
  using kernels::InputStream;
  KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(
      problem.dtype, problem.seed, InputStream::kA, 0, a.get(), problem.n,
      stream));
  KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(
      problem.dtype, problem.seed, InputStream::kB, 0, b.get(), problem.n,
      stream));
  KBENCH_RETURN_IF_ERROR(context->stream.Synchronize());

  KBENCH_ASSIGN_OR_RETURN(cuda::SampleTimer timer,
                          cuda::SampleTimer::Create(stream, &context->flusher));
  return std::make_unique<CudaVectorAdd>(
      std::move(context), problem.n, std::move(variants), std::move(a),
      std::move(b), std::move(c), std::move(timer));
}

}  // namespace kbench::server::cuda_backend
