#include "tools/bench/attention_bench_workload.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/attention/attention_fused_mma.h"
#include "kernels/cuda/attention/attention_fused_wgmma.h"
#include "kernels/cuda/attention/attention_split_kv.h"
#include "kernels/cuda/attention/reference_kernel.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/seeded_input.h"

namespace kbench::tools::bench {

namespace kc = kernels::cuda;
using kernels::DType;
using kernels::cuda_runtime::DeviceBuffer;
using server::worker::backends::cuda::DeviceContext;

absl::StatusOr<AttentionInputs> MakeAttentionInputs(DeviceContext& context,
                                                    const kernels::AttentionShape& shape,
                                                    DType dtype, uint64_t seed, bool with_scores) {
  KBENCH_RETURN_IF_ERROR(context.Enter());
  const size_t element = size_t(kernels::DTypeBytes(dtype));
  const size_t bytes = size_t(shape.TensorElements()) * element;
  AttentionInputs in;
  KBENCH_ASSIGN_OR_RETURN(in.q, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(in.k, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(in.v, DeviceBuffer::Allocate(bytes));
  using kernels::InputStream;
  for (auto [buffer, input] : {std::pair{&in.q, InputStream::kQ}, std::pair{&in.k, InputStream::kK},
                               std::pair{&in.v, InputStream::kV}}) {
    KBENCH_CUDA_RETURN_IF_ERROR(kc::LaunchFillSeeded(dtype, seed, input, 0, buffer->get(),
                                                     shape.TensorElements(), context.stream.get()));
  }
  if (with_scores) {
    absl::StatusOr<DeviceBuffer> scores =
        DeviceBuffer::Allocate(size_t(shape.ScoreElements()) * element);
    if (scores.ok()) {
      in.scores = *std::move(scores);
    } else if (absl::IsResourceExhausted(scores.status())) {
      std::fprintf(stderr, "naive left out: %s\n", std::string(scores.status().message()).c_str());
    } else {
      return scores.status();
    }
  }
  KBENCH_RETURN_IF_ERROR(context.stream.Synchronize());
  return in;
}

absl::StatusOr<std::unique_ptr<BenchAttention>> BenchAttention::Create(
    std::shared_ptr<DeviceContext> context, const kernels::AttentionShape& shape, DType dtype,
    const AttentionInputs& inputs, kernels::cuda_runtime::CublasHandle& cublas,
    const Options& options) {
  KBENCH_RETURN_IF_ERROR(context->Enter());
  int num_sms = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, context->ordinal));
  KBENCH_ASSIGN_OR_RETURN(
      DeviceBuffer output,
      DeviceBuffer::Allocate(size_t(shape.TensorElements()) * size_t(kernels::DTypeBytes(dtype))));
  KBENCH_ASSIGN_OR_RETURN(
      kernels::cuda_runtime::SampleTimer timer,
      kernels::cuda_runtime::SampleTimer::Create(context->stream.get(), &context->flusher));
  std::unique_ptr<BenchAttention> workload(new BenchAttention(
      std::move(context), shape, dtype, inputs, std::move(output), std::move(timer)));
  KBENCH_RETURN_IF_ERROR(workload->AddVariants(num_sms, cublas, options));
  return workload;
}

BenchAttention::BenchAttention(std::shared_ptr<DeviceContext> context,
                               const kernels::AttentionShape& shape, DType dtype,
                               const AttentionInputs& inputs, DeviceBuffer output,
                               kernels::cuda_runtime::SampleTimer timer)
    : CudaWorkload(std::move(context), dtype, dtype, shape.TensorElements(), std::move(output),
                   std::move(timer)),
      shape_(shape),
      dtype_(dtype),
      inputs_(inputs) {}

void BenchAttention::Add(const Options& options, std::string name, Launch launch) {
  if (!options.Selected(name)) return;
  names_.push_back(std::move(name));
  launches_.push_back(std::move(launch));
}

absl::Status BenchAttention::AddVariants(int num_sms, kernels::cuda_runtime::CublasHandle& cublas,
                                         const Options& options) {
  const kernels::AttentionShape shape = shape_;
  const DType dtype = dtype_;
  plan_ = kc::PlanAttentionFused(shape, dtype, num_sms);
  if (plan_.workspace_bytes > 0) {
    KBENCH_ASSIGN_OR_RETURN(workspace_, DeviceBuffer::Allocate(size_t(plan_.workspace_bytes)));
    KBENCH_CUDA_RETURN_IF_ERROR(
        cudaMemset(workspace_.get(), 0, size_t(plan_.workspace_zeroed_bytes)));
  }
  int64_t split_bytes = 0;
  for (int s : options.splits)
    split_bytes = std::max(split_bytes, kc::FusedWorkspaceBytes(shape, dtype, s));
  if (split_bytes > 0) {
    KBENCH_ASSIGN_OR_RETURN(split_workspace_, DeviceBuffer::Allocate(size_t(split_bytes)));
  }

  const AttentionInputs& in = inputs_;
  void* const out = output();
  if (in.scores.get() != nullptr) {
    Add(options, "naive", [&cublas, &in, out, shape, dtype](cudaStream_t stream) -> absl::Status {
      KBENCH_RETURN_IF_ERROR(cublas.Bind(stream));
      KBENCH_CUBLAS_RETURN_IF_ERROR(kc::AttentionScoresGemm(cublas.get(), shape, dtype, in.q.get(),
                                                            in.k.get(), in.scores.get()));
      KBENCH_CUDA_RETURN_IF_ERROR(
          kc::LaunchAttentionSoftmax(shape, dtype, in.scores.get(), stream));
      KBENCH_CUBLAS_RETURN_IF_ERROR(
          kc::AttentionOutputGemm(cublas.get(), shape, dtype, in.scores.get(), in.v.get(), out));
      return absl::OkStatus();
    });
  }
  // fused with `plan` on `tensors`.
  auto fused = [shape, dtype](kc::AttentionTensors tensors, kc::FusedAttentionPlan plan) {
    return [shape, dtype, tensors, plan](cudaStream_t stream) -> absl::Status {
      KBENCH_CUDA_RETURN_IF_ERROR(kc::LaunchAttentionFused(shape, dtype, tensors, plan, stream));
      return absl::OkStatus();
    };
  };
  // (Seeded inputs: fused fp32 is told their bound, as the server tells it.)
  const kc::AttentionTensors x{in.q.get(), in.k.get(),       in.v.get(),
                               out,        workspace_.get(), kernels::kSeededInputBound};
  Add(options, "fused", fused(x, plan_));
  if (plan_.splits > 1) Add(options, "fused-1pass", fused(x, kc::FusedAttentionPlan{}));
  if (plan_.balanced_tail) {
    kc::FusedAttentionPlan plan = plan_;
    plan.balanced_tail = false;
    Add(options, "fused-notail", fused(x, plan));
  }
  const kc::AttentionTensors split_x{
      in.q.get(), in.k.get(), in.v.get(), out, split_workspace_.get(), kernels::kSeededInputBound};
  for (int s : options.splits) {
    kc::FusedAttentionPlan plan;
    plan.splits = s;
    plan.workspace_bytes = kc::FusedWorkspaceBytes(shape, dtype, s);
    Add(options, absl::StrCat("fused-split", s), fused(split_x, plan));
  }

  if (!options.mma_configs) return absl::OkStatus();
  if (dtype == DType::kFp32) {
    for (auto [config, name] : {std::pair{kc::Fp32Config::kWarps8Rows16, "fused-fp32-w8r16"},
                                std::pair{kc::Fp32Config::kWarps4Rows16, "fused-fp32-w4r16"},
                                std::pair{kc::Fp32Config::kWarps4Rows32, "fused-fp32-w4r32"}})
      Add(options, name, [shape, x, config](cudaStream_t stream) -> absl::Status {
        KBENCH_CUDA_RETURN_IF_ERROR(kc::LaunchAttentionFusedFp32(shape, x, config, 1, stream));
        return absl::OkStatus();
      });
    return absl::OkStatus();
  }
  if (kc::WgmmaAttentionRuns(dtype))
    for (auto [config, name] : {std::pair{kc::WgmmaConfig::kFree, "fused-wgmma-free"},
                                std::pair{kc::WgmmaConfig::kPingPong, "fused-wgmma-pingpong"}})
      Add(options, name, [shape, dtype, x, config](cudaStream_t stream) -> absl::Status {
        KBENCH_CUDA_RETURN_IF_ERROR(
            kc::LaunchAttentionFusedWgmma(shape, dtype, x, 1, config, false, stream));
        return absl::OkStatus();
      });
  for (auto [config, name] : {std::pair{kc::MmaConfig::kWarps4Rows32, "fused-w4r32"},
                              std::pair{kc::MmaConfig::kWarps8Rows16, "fused-w8r16"},
                              std::pair{kc::MmaConfig::kWarps4Rows32Narrow, "fused-w4r32n"}})
    Add(options, name, [shape, dtype, x, config](cudaStream_t stream) -> absl::Status {
      KBENCH_CUDA_RETURN_IF_ERROR(kc::LaunchAttentionFusedMma(shape, dtype, x, config, 1, stream));
      return absl::OkStatus();
    });
  return absl::OkStatus();
}

absl::Status BenchAttention::Enqueue(int variant, cudaStream_t stream) {
  return launches_.at(size_t(variant))(stream);
}

std::vector<server::worker::backends::cuda::CudaWorkload::SeededInput> BenchAttention::Inputs()
    const {
  using kernels::InputStream;
  const int64_t elements = shape_.TensorElements();
  return {{InputStream::kQ, inputs_.q.get(), elements},
          {InputStream::kK, inputs_.k.get(), elements},
          {InputStream::kV, inputs_.v.get(), elements}};
}

absl::Status BenchAttention::EnqueueReference(float* ref, cudaStream_t stream) {
  KBENCH_CUDA_RETURN_IF_ERROR(kc::LaunchAttentionReference(
      shape_, dtype_, inputs_.q.get(), inputs_.k.get(), inputs_.v.get(), ref, stream));
  return absl::OkStatus();
}

}  // namespace kbench::tools::bench
