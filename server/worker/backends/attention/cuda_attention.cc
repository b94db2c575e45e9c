// The CUDA workload of attention (kernels/cuda/attention/attention.h): Q, K, V made on
// the device from the problem's seed in its dtype (fp32, fp16, bf16 or fp8;
// O in kernels::AttentionOutputDType, bf16 for fp8), the variants by their
// ids (proto/ops/attention/attention_op.h):
//   naive: S = Q K^T * scale and O = P V by cuBLAS around a mask + softmax
//          kernel, with S (batch * heads * seq_len^2 elements of the dtype)
//          in device memory; for fp8, Q, K and V widened to bf16 into
//          buffers of their own first, and S in bf16;
//   fused: one kernel, S never in device memory (with its keys split over
//          blocks, and an fp32 workspace for the partials, when the shape's
//          query blocks do not fill the SMs, or its last round balanced over
//          the SMs: kernels/cuda/attention/attention.h's PlanAttentionFused;
//          fp8 writes V transposed into its workspace first);
// and the device reference of kernels/cuda/attention/reference_kernel.h.
#include "server/worker/backends/attention/cuda_attention.h"

#include <array>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/attention/tolerances.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda/attention/reference_kernel.h"
#include "kernels/cuda_runtime/cublas_handle.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/sample_timer.h"
#include "kernels/dtype.h"
#include "kernels/seeded_input.h"
#include "proto/ops/attention/attention_op.h"
#include "server/worker/backends/cuda/cuda_workload.h"

namespace kbench::server::worker::backends {

using cuda::CudaOpWorkload;
using cuda::CudaWorkload;
using cuda::DeviceContext;
namespace {

using kernels::DType;

// The dtype naive's GEMMs and softmax run in: bf16 for fp8 (widened first).
DType NaiveDType(DType dtype) { return dtype == DType::kFp8 ? DType::kBf16 : dtype; }

class CudaAttention final : public CudaWorkload {
 public:
  CudaAttention(std::shared_ptr<DeviceContext> context, const kernels::AttentionShape& shape,
                kernels::DType dtype, std::vector<int> variants,
                kernels::cuda_runtime::DeviceBuffer q, kernels::cuda_runtime::DeviceBuffer k,
                kernels::cuda_runtime::DeviceBuffer v, kernels::cuda_runtime::DeviceBuffer o,
                kernels::cuda_runtime::DeviceBuffer scores,
                std::array<kernels::cuda_runtime::DeviceBuffer, 3> widened,
                kernels::cuda::FusedAttentionPlan fused_plan,
                kernels::cuda_runtime::DeviceBuffer fused_workspace,
                kernels::cuda_runtime::CublasHandle cublas,
                kernels::cuda_runtime::SampleTimer timer)
      : CudaWorkload(std::move(context), dtype, kernels::AttentionOutputDType(dtype),
                     shape.TensorElements(), std::move(o), std::move(timer)),
        shape_(shape),
        dtype_(dtype),
        variants_(std::move(variants)),
        q_(std::move(q)),
        k_(std::move(k)),
        v_(std::move(v)),
        scores_(std::move(scores)),
        widened_(std::move(widened)),
        fused_plan_(std::move(fused_plan)),
        fused_workspace_(std::move(fused_workspace)),
        cublas_(std::move(cublas)) {}

  std::string BuiltinConfig(int variant) const override {
    return variants_.at(variant) == proto::ops::kAttentionFused ? fused_plan_.description : "";
  }

 private:
  // The ABI's buffers (proto/ops/attention/attention_op.cc): q, k, v, o.
  std::vector<void*> KernelBuffers() const override {
    return {q_.get(), k_.get(), v_.get(), output()};
  }

  absl::Status Enqueue(int variant, cudaStream_t stream) override {
    if (variants_.at(variant) == proto::ops::kAttentionFused) {
      // (Seeded inputs: fused fp32 is told their bound, no range pass.)
      const kernels::cuda::AttentionTensors tensors{q_.get(),
                                                    k_.get(),
                                                    v_.get(),
                                                    output(),
                                                    fused_workspace_.get(),
                                                    kernels::kSeededInputBound};
      KBENCH_CUDA_RETURN_IF_ERROR(
          kernels::cuda::LaunchAttentionFused(shape_, dtype_, tensors, fused_plan_, stream));
      return absl::OkStatus();
    }
    const void *q = q_.get(), *k = k_.get(), *v = v_.get();
    DType dtype = dtype_;
    if (dtype == DType::kFp8) {
      const void* inputs[3] = {q, k, v};
      for (int i = 0; i < 3; ++i)
        KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchAttentionWidenFp8(
            shape_.TensorElements(), inputs[i], widened_[i].get(), stream));
      q = widened_[0].get(), k = widened_[1].get(), v = widened_[2].get();
      dtype = NaiveDType(dtype);
    }
    KBENCH_RETURN_IF_ERROR(cublas_.Bind(stream));
    KBENCH_CUBLAS_RETURN_IF_ERROR(
        kernels::cuda::AttentionScoresGemm(cublas_.get(), shape_, dtype, q, k, scores_.get()));
    KBENCH_CUDA_RETURN_IF_ERROR(
        kernels::cuda::LaunchAttentionSoftmax(shape_, dtype, scores_.get(), stream));
    KBENCH_CUBLAS_RETURN_IF_ERROR(kernels::cuda::AttentionOutputGemm(cublas_.get(), shape_, dtype,
                                                                     scores_.get(), v, output()));
    return absl::OkStatus();
  }

  absl::Status EnqueueReference(float* ref, cudaStream_t stream) override {
    KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchAttentionReference(
        shape_, dtype_, q_.get(), k_.get(), v_.get(), ref, stream));
    return absl::OkStatus();
  }

  std::vector<SeededInput> Inputs() const override {
    using kernels::InputStream;
    const int64_t elements = shape_.TensorElements();
    return {{InputStream::kQ, q_.get(), elements},
            {InputStream::kK, k_.get(), elements},
            {InputStream::kV, v_.get(), elements}};
  }

  const kernels::AttentionShape shape_;
  const DType dtype_;
  const std::vector<int> variants_;
  kernels::cuda_runtime::DeviceBuffer q_, k_, v_, scores_;
  // fp8 with naive: Q, K and V widened to bf16; otherwise empty.
  std::array<kernels::cuda_runtime::DeviceBuffer, 3> widened_;
  const kernels::cuda::FusedAttentionPlan fused_plan_;
  kernels::cuda_runtime::DeviceBuffer fused_workspace_;  // empty unless fused_plan_ needs one
  kernels::cuda_runtime::CublasHandle cublas_;
};

absl::StatusOr<std::unique_ptr<CudaWorkload>> Prepare(std::shared_ptr<DeviceContext> context,
                                                      const Problem& problem) {
  const kernels::AttentionShape shape = proto::ops::ShapeOf(problem.request.attention());
  if (shape.batch < 1 || shape.heads < 1 || shape.seq_len < 1 || shape.head_dim < 1 ||
      shape.seq_len > std::numeric_limits<int32_t>::max() / 2)
    return absl::InvalidArgumentError("batch, heads, seq_len and head_dim must be at least 1");
  bool naive = false, fused = false;
  for (int v : problem.variants) {
    naive |= v == proto::ops::kAttentionNaive;
    // A head_dim fused does not run is refused by admission (the op's
    // variant table, from kernels/attention/attention_head_dims.h) and by
    // the kernels' launcher, not here.
    fused |= v == proto::ops::kAttentionFused;
  }

  const size_t element = size_t(kernels::DTypeBytes(problem.dtype));
  const size_t tensor = size_t(shape.TensorElements()) * element;
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer q,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(tensor));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer k,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(tensor));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer v,
                          kernels::cuda_runtime::DeviceBuffer::Allocate(tensor));
  const size_t output_tensor =
      size_t(shape.TensorElements()) *
      size_t(kernels::DTypeBytes(kernels::AttentionOutputDType(problem.dtype)));
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::DeviceBuffer o,
                          CudaWorkload::OutputWithGuard(output_tensor));
  kernels::cuda_runtime::DeviceBuffer scores;
  std::array<kernels::cuda_runtime::DeviceBuffer, 3> widened;
  if (naive) {
    const DType naive_dtype = NaiveDType(problem.dtype);
    const size_t naive_element = size_t(kernels::DTypeBytes(naive_dtype));
    if (naive_dtype != problem.dtype) {
      for (auto& buffer : widened) {
        KBENCH_ASSIGN_OR_RETURN(buffer, kernels::cuda_runtime::DeviceBuffer::Allocate(
                                            size_t(shape.TensorElements()) * naive_element));
      }
    }
    absl::StatusOr<kernels::cuda_runtime::DeviceBuffer> s =
        kernels::cuda_runtime::DeviceBuffer::Allocate(size_t(shape.ScoreElements()) *
                                                      naive_element);
    if (!s.ok()) {
      return absl::Status(s.status().code(), absl::StrCat("the scores of naive",
                                                          " (batch * heads * "
                                                          "seq_len^2 = ",
                                                          shape.ScoreElements(), " elements of ",
                                                          kernels::DTypeName(naive_dtype),
                                                          "): ", s.status().message()));
    }
    scores = *std::move(s);
  }

  kernels::cuda::FusedAttentionPlan fused_plan;
  kernels::cuda_runtime::DeviceBuffer fused_workspace;
  if (fused) {
    int sms = 0;
    KBENCH_CUDA_RETURN_IF_ERROR(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, context->ordinal));
    fused_plan = kernels::cuda::PlanAttentionFused(shape, problem.dtype, sms);
    if (fused_plan.workspace_bytes > 0) {
      absl::StatusOr<kernels::cuda_runtime::DeviceBuffer> w =
          kernels::cuda_runtime::DeviceBuffer::Allocate(size_t(fused_plan.workspace_bytes));
      if (!w.ok())
        return absl::Status(
            w.status().code(),
            absl::StrCat("the workspace of fused (", fused_plan.description, ", ",
                         fused_plan.workspace_bytes, " bytes): ", w.status().message()));
      fused_workspace = *std::move(w);
    }
  }

  const cudaStream_t stream = context->stream.get();
  if (fused_plan.workspace_zeroed_bytes > 0)
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(fused_workspace.get(), 0,
                                                size_t(fused_plan.workspace_zeroed_bytes), stream));

  // The workspace of GEMMs captured into the CUDA graphs of hot samples.
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::CublasHandle cublas,
                          kernels::cuda_runtime::CublasHandle::Create());
  KBENCH_ASSIGN_OR_RETURN(kernels::cuda_runtime::SampleTimer timer,
                          kernels::cuda_runtime::SampleTimer::Create(stream, &context->flusher));
  auto workload = std::make_unique<CudaAttention>(
      std::move(context), shape, problem.dtype, problem.variants, std::move(q), std::move(k),
      std::move(v), std::move(o), std::move(scores), std::move(widened), std::move(fused_plan),
      std::move(fused_workspace), std::move(cublas), std::move(timer));
  KBENCH_RETURN_IF_ERROR(workload->FillInputs(problem.request.seed()));
  return workload;
}

}  // namespace

CudaOpWorkload CudaAttentionWorkload() { return {&proto::ops::AttentionOp(), &Prepare}; }

}  // namespace kbench::server::worker::backends
