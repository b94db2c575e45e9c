// Vector add on a CUDA device as a specification: each variant writes every
// element of c = a + b for any n, including tails that are not a multiple of
// 4 or of a block; poisoned output is caught; requests the backend cannot run
// are refused with the right code. Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "kernels/dtype.h"
#include "kernels/reference.h"
#include "kernels/verify.h"
#include "server/backends/cuda/cuda_device.h"
#include "tests/cuda_device_test.h"

namespace kbench::server {
namespace {

constexpr uint64_t kSeed = 20261129;

// The first CUDA device, opened once for the suite.
class CudaVectorAdd : public CudaDeviceTest {
 protected:
  static VectorAddProblem Problem(int64_t n) {
    VectorAddProblem problem;
    problem.n = n;
    problem.seed = kSeed;
    problem.variants = {"naive", "vectorized"};
    return problem;
  }

};

kernels::ErrorStats Check(std::span<const float> out) {
  kernels::ErrorStats errors;
  for (size_t i = 0; i < out.size(); ++i)
    errors.Add(out[i],
               kernels::VectorAddReference(kSeed, kernels::DType::kFp32, i));
  return errors;
}

class CudaVectorAddSizes : public CudaVectorAdd,
                           public ::testing::WithParamInterface<int64_t> {};

TEST_P(CudaVectorAddSizes, EveryVariantWritesEveryElementExactly) {
  const int64_t n = GetParam();
  auto workload = device_->PrepareVectorAdd(Problem(n));
  ASSERT_TRUE(workload.ok()) << workload.status();
  for (int variant : {0, 1}) {
    SCOPED_TRACE(variant == 0 ? "naive" : "vectorized");
    ASSERT_TRUE((*workload)->PoisonOutput().ok());
    ASSERT_TRUE((*workload)->Run(variant).ok());
    auto out = (*workload)->Output();
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(int64_t(out->size()), n);
    const kernels::ErrorStats errors = Check(*out);
    EXPECT_EQ(errors.checked(), uint64_t(n));
    EXPECT_EQ(errors.non_finite(), 0u);
    EXPECT_TRUE(
        errors.Passes(kernels::Tolerance(kernels::DType::kFp32, false)));
    // Inputs carry 24 random bits in [-1, 1), so their fp32 sum is exact.
    EXPECT_EQ(errors.max_abs_error(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    TailsAndBlocks, CudaVectorAddSizes,
    ::testing::Values(int64_t(1), int64_t(3), int64_t(4), int64_t(5),
                      int64_t(255), int64_t(256), int64_t(257),
                      int64_t(1) << 20, (int64_t(1) << 20) - 1,
                      int64_t(1000003), (int64_t(1) << 24) + 3));

TEST_F(CudaVectorAdd, PoisonedOutputIsAllNaNUntilAKernelWritesIt) {
  auto workload = device_->PrepareVectorAdd(Problem(1001));
  ASSERT_TRUE(workload.ok()) << workload.status();
  ASSERT_TRUE((*workload)->PoisonOutput().ok());
  auto out = (*workload)->Output();
  ASSERT_TRUE(out.ok()) << out.status();
  for (float x : *out) ASSERT_TRUE(std::isnan(x));
  const kernels::ErrorStats errors = Check(*out);
  EXPECT_EQ(errors.non_finite(), 1001u);
  EXPECT_FALSE(errors.Passes(kernels::Tolerance(kernels::DType::kFp32, false)));
}

TEST_F(CudaVectorAdd, RefusesAnUnknownVariant) {
  VectorAddProblem problem = Problem(16);
  problem.variants = {"naive", "tiled"};
  auto workload = device_->PrepareVectorAdd(problem);
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(workload.status().message().find("tiled"), absl::string_view::npos);
}

TEST_F(CudaVectorAdd, RefusesFp16) {
  VectorAddProblem problem = Problem(16);
  problem.dtype = kernels::DType::kFp16;
  auto workload = device_->PrepareVectorAdd(problem);
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CudaVectorAdd, OutOfMemoryIsResourceExhaustedAndTheDeviceStaysUsable) {
  auto huge = device_->PrepareVectorAdd(Problem(int64_t(1) << 42));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(huge.status().message().find(std::to_string(int64_t(1) << 44)),
            absl::string_view::npos)
      << huge.status();
  EXPECT_TRUE(device_->Healthy());
  auto small = device_->PrepareVectorAdd(Problem(1000));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_TRUE((*small)->Run(1).ok());
}

}  // namespace
}  // namespace kbench::server
