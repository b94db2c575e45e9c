// The bench's attention workload: the CUDA backend's CudaWorkload
// (server/worker/backends/cuda/cuda_workload.h: the output, its poisoning,
// runs, cold samples through kernels::cuda_runtime::SampleTimer, the device reference and the
// comparison of every element with it) over the variants the bench times at
// one point, beyond the two the server offers:
//   naive: cuBLAS S = Q K^T, the mask + softmax kernel, cuBLAS O = P V;
//   fused: LaunchAttentionFused as PlanAttentionFused says for the device's
//       SMs; fused-1pass (the same tiling, no split) where that plan splits
//       the keys, and fused-notail (the plan without it) where it balances
//       the last round over the SMs;
//   fused-split<S> for each of --splits;
//   with --mma-configs, fused-<config>: every wgmma config (where the device
//       runs it) and mma.sync tiling, one pass each (fp32: fused-fp32-<config>).
// Only the variants --variants selects are made. The inputs are borrowed
// (made once per dtype and shape, shared by both causal points) and must
// outlive the workload; so must the cuBLAS handle. Threading: one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/attention/attention_shape.h"
#include "kernels/cuda/attention/attention.h"
#include "kernels/cuda_runtime/cublas_handle.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/dtype.h"
#include "server/worker/backends/cuda/cuda_workload.h"
#include "tools/bench/attention_bench_flags.h"

namespace kbench::tools::bench {

// Q, K and V of one dtype and shape, filled from `seed` as the server fills
// them (kernels/cuda/seeded_fill.h), and naive's score buffer.
struct AttentionInputs {
  kernels::cuda_runtime::DeviceBuffer q, k, v;
  kernels::cuda_runtime::DeviceBuffer scores;  // empty when naive does not run or S does not fit
};

// The inputs on the context's device. Without `with_scores`, or when the
// score matrix does not fit (said on stderr), `scores` stays empty and naive
// is left out.
absl::StatusOr<AttentionInputs> MakeAttentionInputs(
    server::worker::backends::cuda::DeviceContext& context, const kernels::AttentionShape& shape,
    kernels::DType dtype, uint64_t seed, bool with_scores);

class BenchAttention final : public server::worker::backends::cuda::CudaWorkload {
 public:
  // The workload of one point (shape.causal set) on the context's device.
  static absl::StatusOr<std::unique_ptr<BenchAttention>> Create(
      std::shared_ptr<server::worker::backends::cuda::DeviceContext> context,
      const kernels::AttentionShape& shape, kernels::DType dtype, const AttentionInputs& inputs,
      kernels::cuda_runtime::CublasHandle& cublas, const Options& options);

  // The variants' names, by index (Run's and TimeSample's `variant`).
  const std::vector<std::string>& names() const { return names_; }
  // fused's plan for the point, in words.
  const std::string& fused_plan() const { return plan_.description; }

 private:
  using Launch = std::function<absl::Status(cudaStream_t)>;

  BenchAttention(std::shared_ptr<server::worker::backends::cuda::DeviceContext> context,
                 const kernels::AttentionShape& shape, kernels::DType dtype,
                 const AttentionInputs& inputs, kernels::cuda_runtime::DeviceBuffer output,
                 kernels::cuda_runtime::SampleTimer timer);

  // Makes the plan and workspaces and adds the selected variants.
  absl::Status AddVariants(int num_sms, kernels::cuda_runtime::CublasHandle& cublas,
                           const Options& options);
  void Add(const Options& options, std::string name, Launch launch);

  absl::Status Enqueue(int variant, cudaStream_t stream) override;
  absl::Status EnqueueReference(float* ref, cudaStream_t stream) override;
  // The shared inputs (the bench never redraws them).
  std::vector<SeededInput> Inputs() const override;

  const kernels::AttentionShape shape_;
  const kernels::DType dtype_;
  const AttentionInputs& inputs_;
  kernels::cuda::FusedAttentionPlan plan_;
  // The plan's workspace, and that of --splits apart (their partials would
  // overwrite the plan's counters).
  kernels::cuda_runtime::DeviceBuffer workspace_, split_workspace_;
  std::vector<std::string> names_;
  std::vector<Launch> launches_;
};

}  // namespace kbench::tools::bench
