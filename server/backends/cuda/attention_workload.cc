#include "server/backends/cuda/attention_workload.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/dtype.h"
#include "server/backends/cuda/cuda_workload.h"
#include "server/cuda_runtime/cublas_handle.h"
#include "server/cuda_runtime/cuda_status.h"
#include "server/cuda_runtime/device_buffer.h"
#include "server/cuda_runtime/sample_timer.h"
#include "server/status_macros.h"

namespace kbench::server::cuda_backend {
namespace {

using kernels::DType;

enum class Variant { kNaive, kFused };

std::string FusedHeadDims() {
  return absl::StrJoin(std::begin(kernels::cuda::kFusedHeadDims),
                       std::end(kernels::cuda::kFusedHeadDims), ", ");
}

absl::StatusOr<std::vector<Variant>> ParseVariants(
    const std::vector<std::string>& names) {
  std::vector<Variant> variants;
  for (const std::string& name : names) {
    if (name == kAttentionNaive) {
      variants.push_back(Variant::kNaive);
    } else if (name == kAttentionFused) {
      variants.push_back(Variant::kFused);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("variants: attention on CUDA runs ", kAttentionNaive,
                       " and ", kAttentionFused, ", not '", name, "'"));
    }
  }
  return variants;
}

class CudaAttention final : public CudaWorkload {
 public:
  CudaAttention(std::shared_ptr<DeviceContext> context,
                const AttentionProblem& problem, std::vector<Variant> variants,
                cuda::DeviceBuffer q, cuda::DeviceBuffer k,
                cuda::DeviceBuffer v, cuda::DeviceBuffer o,
                cuda::DeviceBuffer scores, cuda::CublasHandle cublas,
                cuda::SampleTimer timer)
      : CudaWorkload(std::move(context), problem.dtype,
                     problem.shape.TensorElements(), std::move(o),
                     std::move(timer)),
        shape_(problem.shape),
        dtype_(problem.dtype),
        variants_(std::move(variants)),
        q_(std::move(q)),
        k_(std::move(k)),
        v_(std::move(v)),
        scores_(std::move(scores)),
        cublas_(std::move(cublas)) {}

 private:
  absl::Status Enqueue(int variant, cudaStream_t stream) override {
    if (variants_.at(variant) == Variant::kFused) {
      const kernels::cuda::AttentionTensors tensors{q_.get(), k_.get(),
                                                    v_.get(), output()};
      KBENCH_CUDA_RETURN_IF_ERROR(
          kernels::cuda::LaunchAttentionFused(shape_, dtype_, tensors, stream));
      return absl::OkStatus();
    }
    KBENCH_RETURN_IF_ERROR(cublas_.Bind(stream));
    KBENCH_CUBLAS_RETURN_IF_ERROR(kernels::cuda::AttentionScoresGemm(
        cublas_.get(), shape_, dtype_, q_.get(), k_.get(), scores_.get()));
    KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchAttentionSoftmax(
        shape_, dtype_, scores_.get(), stream));
    KBENCH_CUBLAS_RETURN_IF_ERROR(kernels::cuda::AttentionOutputGemm(
        cublas_.get(), shape_, dtype_, scores_.get(), v_.get(), output()));
    return absl::OkStatus();
  }

  const kernels::AttentionShape shape_;
  const DType dtype_;
  const std::vector<Variant> variants_;
  cuda::DeviceBuffer q_, k_, v_, scores_;
  cuda::CublasHandle cublas_;
};

}  // namespace

v1::OpInfo CudaAttentionOp() {
  v1::OpInfo op;
  op.set_op("attention");
  op.add_variants(kAttentionNaive);
  op.add_variants(kAttentionFused);
  op.add_dtypes(v1::DTYPE_FP32);
  op.add_dtypes(v1::DTYPE_FP16);
  op.add_dtypes(v1::DTYPE_BF16);
  for (int d : kernels::cuda::kFusedHeadDims) op.add_head_dims(uint32_t(d));
  return op;
}

absl::StatusOr<std::unique_ptr<Workload>> PrepareCudaAttention(
    std::shared_ptr<DeviceContext> context, const AttentionProblem& problem) {
  const kernels::AttentionShape& shape = problem.shape;
  if (shape.batch < 1 || shape.heads < 1 || shape.seq_len < 1 ||
      shape.head_dim < 1 ||
      shape.seq_len > std::numeric_limits<int32_t>::max() / 2) {
    return absl::InvalidArgumentError(
        "batch, heads, seq_len and head_dim must be at least 1");
  }
  KBENCH_ASSIGN_OR_RETURN(std::vector<Variant> variants,
                          ParseVariants(problem.variants));
  bool naive = false;
  for (Variant v : variants) {
    naive |= v == Variant::kNaive;
    if (v == Variant::kFused &&
        !kernels::cuda::FusedAttentionSupports(shape.head_dim)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "head_dim ", shape.head_dim, " is not supported by ", kAttentionFused,
          " on CUDA; supported: ", FusedHeadDims()));
    }
  }

  const size_t element = size_t(kernels::DTypeBytes(problem.dtype));
  const size_t tensor = size_t(shape.TensorElements()) * element;
  KBENCH_ASSIGN_OR_RETURN(cuda::DeviceBuffer q,
                          cuda::DeviceBuffer::Allocate(tensor));
  KBENCH_ASSIGN_OR_RETURN(cuda::DeviceBuffer k,
                          cuda::DeviceBuffer::Allocate(tensor));
  KBENCH_ASSIGN_OR_RETURN(cuda::DeviceBuffer v,
                          cuda::DeviceBuffer::Allocate(tensor));
  KBENCH_ASSIGN_OR_RETURN(cuda::DeviceBuffer o,
                          cuda::DeviceBuffer::Allocate(tensor));
  cuda::DeviceBuffer scores;
  if (naive) {
    absl::StatusOr<cuda::DeviceBuffer> s =
        cuda::DeviceBuffer::Allocate(size_t(shape.ScoreElements()) * element);
    if (!s.ok()) {
      return absl::Status(s.status().code(),
                          absl::StrCat("the scores of ", kAttentionNaive,
                                       " (batch * heads * "
                                       "seq_len^2 = ",
                                       shape.ScoreElements(), " elements of ",
                                       kernels::DTypeName(problem.dtype),
                                       "): ", s.status().message()));
    }
    scores = *std::move(s);
  }

  const cudaStream_t stream = context->stream.get();
  using kernels::InputStream;
  for (auto [buffer, input] :
       {std::pair{&q, InputStream::kQ}, std::pair{&k, InputStream::kK},
        std::pair{&v, InputStream::kV}}) {
    KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchFillSeeded(
        problem.dtype, problem.seed, input, 0, buffer->get(),
        shape.TensorElements(), stream));
  }
  KBENCH_RETURN_IF_ERROR(context->stream.Synchronize());

  // The workspace of GEMMs captured into the CUDA graphs of hot samples.
  KBENCH_ASSIGN_OR_RETURN(cuda::CublasHandle cublas,
                          cuda::CublasHandle::Create());
  KBENCH_ASSIGN_OR_RETURN(cuda::SampleTimer timer,
                          cuda::SampleTimer::Create(stream, &context->flusher));
  return std::make_unique<CudaAttention>(
      std::move(context), problem, std::move(variants), std::move(q),
      std::move(k), std::move(v), std::move(o), std::move(scores),
      std::move(cublas), std::move(timer));
}

}  // namespace kbench::server::cuda_backend
