// Vector add on the CPU: the kernels of kernels/vector_add/cpu_vector_add.h on seeded
// fp32 inputs; the device reference is kernels/simple_reference.h's.
#include <vector>

#include "kernels/vector_add/cpu_vector_add.h"
#include "kernels/seeded_input.h"
#include "kernels/simple_reference.h"
#include "server/worker/backends/cpu/cpu_workload.h"
#include "server/worker/backends/cpu/cpu_workloads.h"
#include "proto/ops/vector_add/vector_add_op.h"

namespace kbench::server::cpu {
namespace {

class CpuVectorAdd final : public CpuWorkload {
 public:
  explicit CpuVectorAdd(const Problem& problem)
      : CpuWorkload(problem.request.vector_add().n()),
        a_(output_.size()),
        b_(output_.size()),
        variants_(problem.variants) {
    using kernels::InputStream;
    const uint64_t seed = problem.request.seed();
    kernels::FillSeeded(seed, InputStream::kA, 0, a_.size(), a_.data());
    kernels::FillSeeded(seed, InputStream::kB, 0, b_.size(), b_.data());
  }

 private:
  void RunVariant(int variant) override {
    const int64_t n = int64_t(a_.size());
    if (variants_[variant] == ops::kVectorAddVectorized) {
      kernels::VectorAddVectorizedCpu(a_.data(), b_.data(), output_.data(), n);
    } else {
      kernels::VectorAddNaiveCpu(a_.data(), b_.data(), output_.data(), n);
    }
  }

  void RunReference(std::span<float> reference) override {
    kernels::VectorAddSimpleReference(a_.data(), b_.data(), reference.data(),
                                      int64_t(a_.size()));
  }

  std::vector<float> a_, b_;
  const std::vector<int> variants_;
};

}  // namespace

std::unique_ptr<Workload> MakeCpuVectorAdd(const Problem& problem) {
  return std::make_unique<CpuVectorAdd>(problem);
}

}  // namespace kbench::server::cpu
