// The CUDA workload of vector add (kernels/cuda/vector_add/vector_add.h): a and b
// made on the device from the seed, the variants naive and vectorized by
// their ids (proto/ops/vector_add/vector_add_op.h), fp32.
#include "server/worker/backends/vector_add/cuda_vector_add.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/vector_add/reference_kernel.h"
#include "kernels/cuda/vector_add/vector_add.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/sample_timer.h"
#include "proto/ops/vector_add/vector_add_op.h"
#include "server/worker/backends/cuda/cuda_workload.h"

namespace kbench::server::worker::backends {

using cuda::CudaOpWorkload;
using cuda::CudaWorkload;
using cuda::DeviceContext;
namespace {

class CudaVectorAdd final : public CudaWorkload {
 public:
  CudaVectorAdd(std::shared_ptr<DeviceContext> context, int64_t n, std::vector<int> variants,
                kernels::cuda_runtime::DeviceBuffer a, kernels::cuda_runtime::DeviceBuffer b,
                kernels::cuda_runtime::DeviceBuffer c, kernels::cuda_runtime::SampleTimer timer)
      : CudaWorkload(std::move(context), kernels::DType::kFp32, kernels::DType::kFp32, n,
                     std::move(c), std::move(timer)),
        n_(n),
        variants_(std::move(variants)),
        a_(std::move(a)),
        b_(std::move(b)) {}

 private:
  absl::Status Enqueue(int variant, cudaStream_t stream) override {
    const float* a = a_.as<float>();
    const float* b = b_.as<float>();
    float* c = static_cast<float*>(output());
    if (variants_.at(variant) == proto::ops::kVectorAddNaive) {
      KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchVectorAddNaive(a, b, c, n_, stream));
    } else {
      KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchVectorAddVectorized(a, b, c, n_, stream));
    }
    return absl::OkStatus();
  }

  // The ABI's buffers (proto/ops/vector_add/vector_add_op.cc): a, b, c.
  std::vector<void*> KernelBuffers() const override { return {a_.get(), b_.get(), output()}; }

  absl::Status EnqueueReference(float* ref, cudaStream_t stream) override {
    KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchVectorAddReference(
        kernels::DType::kFp32, a_.get(), b_.get(), ref, n_, stream));
    return absl::OkStatus();
  }

  std::vector<SeededInput> Inputs() const override {
    return {{kernels::InputStream::kA, a_.get(), n_}, {kernels::InputStream::kB, b_.get(), n_}};
  }

  const int64_t n_;
  const std::vector<int> variants_;
  kernels::cuda_runtime::DeviceBuffer a_, b_;
};

absl::StatusOr<std::unique_ptr<CudaWorkload>> Prepare(std::shared_ptr<DeviceContext> context,
                                                      const Problem& problem) {
  const int64_t n = int64_t(problem.request.vector_add().n());
  if (problem.dtype != kernels::DType::kFp32)
    return absl::InvalidArgumentError("dtype: vector_add on CUDA runs fp32 only");
  if (n < 1 || uint64_t(n) > std::numeric_limits<size_t>::max() / 16)
    return absl::InvalidArgumentError(absl::StrCat("n: ", n, " elements cannot be allocated"));

  const size_t bytes = size_t(n) * sizeof(float);
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer a,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer b,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer c,
                          CudaWorkload::OutputWithGuard(bytes));

  KBENCH_ASSIGN_OR_RETURN(
      kernels::cuda_runtime::SampleTimer timer,
      kernels::cuda_runtime::SampleTimer::Create(context->stream.get(), &context->flusher));
  auto workload =
      std::make_unique<CudaVectorAdd>(std::move(context), n, problem.variants, std::move(a),
                                      std::move(b), std::move(c), std::move(timer));
  KBENCH_RETURN_IF_ERROR(workload->FillInputs(problem.request.seed()));
  return workload;
}

}  // namespace

CudaOpWorkload CudaVectorAddWorkload() { return {&proto::ops::VectorAddOp(), &Prepare}; }

}  // namespace kbench::server::worker::backends
