// Mutation tests on the GPU: broken attention kernels that exist only here
// (gpu_mutation_kernels.cuh), each checked the way the CUDA backend checks a
// variant: every element against the device reference kernel
// (kernels/cuda/attention/reference_kernel.h) with the comparison kernel, held to
// the op's tolerances against the reference. The correct kernel must pass
// and each mutation must fail; so must the output of a previous run (other
// inputs) left in place. Skips where no CUDA device is present.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/attention/tolerances.h"
#include "kernels/cuda/attention/reference_kernel.h"
#include "kernels/cuda/comparison_kernel.h"
#include "kernels/cuda/comparison_partials.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/stream.h"
#include "kernels/verify.h"
#include "server/worker/backends/cuda/cuda_device.h"
#include "tests/gpu_mutation_kernels.cuh"

namespace kbench::testing {
namespace {

using kernels::AttentionShape;
using kernels::DType;
using kernels::InputStream;
using kernels::cuda::ComparisonPartial;

#define ASSERT_CUDA(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

struct Case {
  Mutation mutation;
  const char* name;
};

class GpuMutation : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
      GTEST_SKIP() << count.status().message();
  }
};

// Fills Q, K, V from `seed`, runs the (mutant) kernel on a poisoned output,
// and compares it with the device reference of `reference_seed`'s inputs.
kernels::Comparison RunAndCompare(const AttentionShape& shape, Mutation mutation, uint64_t seed,
                                  uint64_t reference_seed) {
  const int64_t n = shape.TensorElements();
  auto alloc = [&] {
    return *kbench::kernels::cuda_runtime::DeviceBuffer::Allocate(size_t(n) * 4);
  };
  kbench::kernels::cuda_runtime::DeviceBuffer q = alloc(), k = alloc(), v = alloc(), o = alloc(),
                                              ref = alloc();
  kbench::kernels::cuda_runtime::DeviceBuffer rq = alloc(), rk = alloc(), rv = alloc();
  auto partials = *kbench::kernels::cuda_runtime::DeviceBuffer::Allocate(
      size_t(kernels::cuda::kMaxComparisonBlocks) * sizeof(ComparisonPartial));
  auto stream = *kbench::kernels::cuda_runtime::Stream::Create();
  cudaStream_t s = stream.get();
  for (auto [buffer, input, which] :
       {std::tuple{&q, InputStream::kQ, seed}, std::tuple{&k, InputStream::kK, seed},
        std::tuple{&v, InputStream::kV, seed}, std::tuple{&rq, InputStream::kQ, reference_seed},
        std::tuple{&rk, InputStream::kK, reference_seed},
        std::tuple{&rv, InputStream::kV, reference_seed}})
    EXPECT_EQ(kernels::cuda::LaunchFillSeeded(DType::kFp32, which, input, 0, buffer->get(), n, s),
              cudaSuccess);
  EXPECT_EQ(cudaMemsetAsync(o.get(), 0xFF, size_t(n) * 4, s), cudaSuccess);
  EXPECT_EQ(LaunchMutantAttention(shape, q.as<float>(), k.as<float>(), v.as<float>(), o.as<float>(),
                                  mutation, s),
            cudaSuccess);
  EXPECT_EQ(kernels::cuda::LaunchAttentionReference(shape, DType::kFp32, rq.get(), rk.get(),
                                                    rv.get(), ref.as<float>(), s),
            cudaSuccess);
  const kernels::ElementTolerance tolerance =
      kernels::AttentionTolerances(DType::kFp32, shape).against_reference.element;
  EXPECT_EQ(kernels::cuda::LaunchCompare(DType::kFp32, o.get(), ref.as<float>(), n, tolerance.atol,
                                         tolerance.rtol, partials.as<ComparisonPartial>(), s),
            cudaSuccess);
  std::vector<ComparisonPartial> host(size_t(kernels::cuda::ComparisonBlocks(n)));
  EXPECT_EQ(cudaMemcpyAsync(host.data(), partials.get(), host.size() * sizeof(ComparisonPartial),
                            cudaMemcpyDeviceToHost, s),
            cudaSuccess);
  EXPECT_TRUE(stream.Synchronize().ok());
  return kernels::cuda::MergePartials(host);
}

// Causal, 2 x 3 heads, N = 200 (a partial last tile), d = 64.
const AttentionShape kShape{.batch = 2, .heads = 3, .seq_len = 200, .head_dim = 64, .causal = true};

TEST_P(GpuMutation, FailsTheDeviceCheckWhileTheCorrectKernelPasses) {
  const kernels::Tolerance tolerance =
      kernels::AttentionTolerances(DType::kFp32, kShape).against_reference;
  const kernels::Comparison c = RunAndCompare(kShape, GetParam().mutation, 11, 11);
  EXPECT_EQ(c.checked, uint64_t(kShape.TensorElements()));
  if (GetParam().mutation == Mutation::kNone) {
    EXPECT_TRUE(c.Passes(tolerance))
        << "rel l2 " << c.rel_l2_error() << ", over " << c.over_tolerance;
  } else {
    EXPECT_FALSE(c.Passes(tolerance))
        << GetParam().name << ": rel l2 " << c.rel_l2_error() << " (limit " << tolerance.rel_l2
        << "), over " << c.over_tolerance << ", non-finite " << c.non_finite;
  }
}

INSTANTIATE_TEST_SUITE_P(AttentionFp32, GpuMutation,
                         ::testing::Values(Case{Mutation::kNone, "correct"},
                                           Case{Mutation::kScale, "scale"},
                                           Case{Mutation::kOneElement, "one_element"},
                                           Case{Mutation::kLastHeadRow, "last_head_row"},
                                           Case{Mutation::kUnwrittenTail, "unwritten_tail"},
                                           Case{Mutation::kCausalOffByOne, "causal_off_by_one"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(GpuMutationPreviousRun, AnOutputOfOtherInputsLeftInPlaceFails) {
  if (auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
    GTEST_SKIP() << count.status().message();
  const kernels::Comparison c = RunAndCompare(kShape, Mutation::kNone, 11, 12);
  EXPECT_FALSE(c.Passes(kernels::AttentionTolerances(DType::kFp32, kShape).against_reference));
}

}  // namespace
}  // namespace kbench::testing
