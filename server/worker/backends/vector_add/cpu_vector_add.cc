// Vector add on the CPU: the kernels of kernels/vector_add/cpu_vector_add.h on seeded
// fp32 inputs; the device reference is kernels/vector_add/simple_reference.h's.
#include "server/worker/backends/vector_add/cpu_vector_add.h"

#include <utility>
#include <vector>

#include "kernels/common/status_macros.h"
#include "kernels/seeded_input.h"
#include "kernels/vector_add/cpu_vector_add.h"
#include "kernels/vector_add/simple_reference.h"
#include "proto/ops/vector_add/vector_add_op.h"
#include "server/worker/backends/cpu/cpu_workload.h"

namespace kbench::server::worker::backends {

using cpu::CpuOpWorkload;
using cpu::CpuWorkload;
using cpu::HostBuffer;
namespace {

class CpuVectorAdd final : public CpuWorkload {
 public:
  CpuVectorAdd(const Problem& problem, HostBuffer a, HostBuffer b)
      : CpuWorkload(a.size()), a_(std::move(a)), b_(std::move(b)), variants_(problem.variants) {}

 private:
  void RunVariant(int variant) override {
    const int64_t n = int64_t(a_.size());
    if (variants_[variant] == proto::ops::kVectorAddVectorized) {
      kernels::VectorAddVectorizedCpu(a_.data(), b_.data(), output_.data(), n);
    } else {
      kernels::VectorAddNaiveCpu(a_.data(), b_.data(), output_.data(), n);
    }
  }

  void RunReference(std::span<float> reference) override {
    kernels::VectorAddSimpleReference(a_.data(), b_.data(), reference.data(), int64_t(a_.size()));
  }

  std::vector<std::pair<kernels::InputStream, std::span<float>>> Inputs() override {
    return {{kernels::InputStream::kA, a_}, {kernels::InputStream::kB, b_}};
  }

  HostBuffer a_, b_;
  const std::vector<int> variants_;
};

absl::StatusOr<std::unique_ptr<Workload>> Prepare(const Problem& problem, const GoOn& go_on) {
  HostBuffer a(problem.request.vector_add().n()), b(a.size());
  auto workload = std::make_unique<CpuVectorAdd>(problem, std::move(a), std::move(b));
  KBENCH_RETURN_IF_ERROR(workload->FillInputs(problem.request.seed(), go_on));
  return workload;
}

}  // namespace

CpuOpWorkload CpuVectorAddWorkload() { return {&proto::ops::VectorAddOp(), &Prepare}; }

}  // namespace kbench::server::worker::backends
