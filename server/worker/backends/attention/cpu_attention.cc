// Attention on the CPU: the kernels of kernels/attention/cpu_attention.h on seeded
// fp32 Q, K, V; the naive variant's score matrix is allocated only when it
// runs. The device reference is kernels/attention/simple_reference.h's.
#include "server/worker/backends/attention/cpu_attention.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/attention/cpu_attention.h"
#include "kernels/attention/simple_reference.h"
#include "kernels/common/status_macros.h"
#include "kernels/seeded_input.h"
#include "proto/ops/attention/attention_op.h"
#include "server/worker/backends/cpu/cpu_workload.h"
#include "server/worker/backends/cpu/cpu_workloads.h"

namespace kbench::server::worker::backends {

using cpu::CpuOpWorkload;
using cpu::CpuWorkload;
using cpu::HostBuffer;
namespace {

class CpuAttention final : public CpuWorkload {
 public:
  CpuAttention(const Problem& problem, HostBuffer q, HostBuffer k, HostBuffer v)
      : CpuWorkload(q.size()),
        shape_(proto::ops::ShapeOf(problem.request.attention())),
        variants_(problem.variants),
        q_(std::move(q)),
        k_(std::move(k)),
        v_(std::move(v)) {
    if (std::find(variants_.begin(), variants_.end(), proto::ops::kAttentionNaive) !=
        variants_.end())
      scores_.resize(shape_.ScoreElements());
  }

 private:
  void RunVariant(int variant) override {
    if (variants_[variant] == proto::ops::kAttentionFused) {
      kernels::AttentionFusedCpu(shape_, q_.data(), k_.data(), v_.data(), output_.data());
    } else {
      kernels::AttentionNaiveCpu(shape_, q_.data(), k_.data(), v_.data(), scores_.data(),
                                 output_.data());
    }
  }

  void RunReference(std::span<float> reference) override {
    kernels::AttentionSimpleReference(shape_, q_.data(), k_.data(), v_.data(), reference.data());
  }

  std::vector<std::pair<kernels::InputStream, std::span<float>>> Inputs() override {
    using kernels::InputStream;
    return {{InputStream::kQ, q_}, {InputStream::kK, k_}, {InputStream::kV, v_}};
  }

  const kernels::AttentionShape shape_;
  const std::vector<int> variants_;
  HostBuffer q_, k_, v_, scores_;
};

absl::StatusOr<std::unique_ptr<Workload>> Prepare(const Problem& problem, const GoOn& go_on) {
  const size_t count = size_t(proto::ops::ShapeOf(problem.request.attention()).TensorElements());
  HostBuffer q(count), k(count), v(count);
  auto workload = std::make_unique<CpuAttention>(problem, std::move(q), std::move(k), std::move(v));
  KBENCH_RETURN_IF_ERROR(workload->FillInputs(problem.request.seed(), go_on));
  return workload;
}

}  // namespace

CpuOpWorkload CpuAttentionWorkload() { return {&proto::ops::AttentionOp(), &Prepare}; }

}  // namespace kbench::server::worker::backends
