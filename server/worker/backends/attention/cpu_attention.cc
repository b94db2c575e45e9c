// Attention on the CPU: the kernels of kernels/attention/cpu_attention.h on seeded
// fp32 Q, K, V; the naive variant's score matrix is allocated only when it
// runs. The device reference is kernels/simple_reference.h's.
#include <algorithm>
#include <vector>

#include "kernels/attention/cpu_attention.h"
#include "kernels/seeded_input.h"
#include "kernels/simple_reference.h"
#include "server/worker/backends/cpu/cpu_workload.h"
#include "server/worker/backends/cpu/cpu_workloads.h"
#include "proto/ops/attention/attention_op.h"

namespace kbench::server::cpu {
namespace {

class CpuAttention final : public CpuWorkload {
 public:
  explicit CpuAttention(const Problem& problem)
      : CpuWorkload(ops::ShapeOf(problem.request.attention()).TensorElements()),
        shape_(ops::ShapeOf(problem.request.attention())),
        variants_(problem.variants) {
    using kernels::InputStream;
    const int64_t count = shape_.TensorElements();
    const uint64_t seed = problem.request.seed();
    q_.resize(count);
    k_.resize(count);
    v_.resize(count);
    kernels::FillSeeded(seed, InputStream::kQ, 0, count, q_.data());
    kernels::FillSeeded(seed, InputStream::kK, 0, count, k_.data());
    kernels::FillSeeded(seed, InputStream::kV, 0, count, v_.data());
    if (std::find(variants_.begin(), variants_.end(), ops::kAttentionNaive) != variants_.end())
      scores_.resize(shape_.ScoreElements());
  }

 private:
  void RunVariant(int variant) override {
    if (variants_[variant] == ops::kAttentionFused) {
      kernels::AttentionFusedCpu(shape_, q_.data(), k_.data(), v_.data(), output_.data());
    } else {
      kernels::AttentionNaiveCpu(shape_, q_.data(), k_.data(), v_.data(), scores_.data(),
                                 output_.data());
    }
  }

  void RunReference(std::span<float> reference) override {
    kernels::AttentionSimpleReference(shape_, q_.data(), k_.data(), v_.data(),
                                      reference.data());
  }

  const kernels::AttentionShape shape_;
  const std::vector<int> variants_;
  std::vector<float> q_, k_, v_, scores_;
};

}  // namespace

std::unique_ptr<Workload> MakeCpuAttention(const Problem& problem) {
  return std::make_unique<CpuAttention>(problem);
}

}  // namespace kbench::server::cpu
