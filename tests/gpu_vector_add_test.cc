// Vector add on a CUDA device as a specification: each variant writes every
// element of c = a + b for any n, including tails that are not a multiple of
// 4 or of a block, exactly (checked on the host against the double
// reference, and by the op's verifier); the device reference and its
// comparison kernel agree with the host's; poisoned output is caught;
// problems the backend cannot run are refused with the right code. Skipped
// where no CUDA device is present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kernels/dtype.h"
#include "kernels/vector_add/reference.h"
#include "kernels/vector_add/tolerances.h"
#include "kernels/verify.h"
#include "proto/ops/vector_add/vector_add_op.h"
#include "server/worker/backends/cuda/cuda_device.h"
#include "tests/cuda_device_test.h"

namespace kbench::server {
namespace {

constexpr uint64_t kSeed = 20261129;
const kernels::OpTolerances& Tolerances() {
  static const kernels::OpTolerances t = kernels::VectorAddTolerances(kernels::DType::kFp32);
  return t;
}

// The first CUDA device, opened once for the suite.
using CudaVectorAdd = CudaDeviceTest;

// `buffer` of the workload, all n elements.
std::vector<float> ReadAll(worker::Workload& workload, proto::ops::OutputBuffer buffer, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  const absl::Status status = workload.Read(buffer, 0, out);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

// out against the double reference of every element.
kernels::Comparison AgainstExact(const std::vector<float>& out,
                                 const kernels::ElementTolerance& tolerance) {
  kernels::Comparison c;
  for (size_t i = 0; i < out.size(); ++i)
    c.Add(int64_t(i), out[i], kernels::VectorAddReference(kSeed, kernels::DType::kFp32, i),
          tolerance);
  return c;
}

class CudaVectorAddSizes : public CudaVectorAdd, public ::testing::WithParamInterface<int64_t> {};

TEST_P(CudaVectorAddSizes, EveryVariantWritesEveryElementExactly) {
  const int64_t n = GetParam();
  const Problem problem = MakeVectorAddProblem(n, kSeed);
  auto workload = device_->Prepare(problem, NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  const std::unique_ptr<proto::ops::Verifier> verifier =
      problem.op->MakeVerifier(problem.request, problem.dtype);
  for (int variant : {0, 1}) {
    SCOPED_TRACE(problem.VariantName(size_t(variant)));
    ASSERT_TRUE((*workload)->PoisonOutput().ok());
    ASSERT_TRUE((*workload)->Run(variant).ok());
    const std::vector<float> out = ReadAll(**workload, proto::ops::OutputBuffer::kOutput, n);
    const kernels::Comparison exact = AgainstExact(out, Tolerances().variant.element);
    EXPECT_EQ(exact.checked, uint64_t(n));
    EXPECT_EQ(exact.non_finite, 0u);
    EXPECT_TRUE(exact.Passes(Tolerances().variant))
        << "rel L2 " << exact.rel_l2_error() << ", worst element " << exact.worst_index;
    // Inputs carry 24 random bits in [-1, 1), so their fp32 sum is exact.
    EXPECT_EQ(exact.max_abs_error, 0);

    // Every element against the device reference, on the device.
    auto all = (*workload)->CompareWithReference(Tolerances().against_reference.element);
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_EQ(all->checked, uint64_t(n));
    EXPECT_TRUE(all->Passes(Tolerances().against_reference));
    EXPECT_EQ(all->max_abs_error, 0);

    // The op's verifier, as the runner calls it.
    auto verification = verifier->Check(**workload);
    ASSERT_TRUE(verification.ok()) << verification.status();
    EXPECT_TRUE(verification->passed()) << verification->failure();
    EXPECT_EQ(verification->elements_checked(), uint64_t(n));
  }
}

INSTANTIATE_TEST_SUITE_P(TailsAndBlocks, CudaVectorAddSizes,
                         ::testing::Values(int64_t(1), int64_t(3), int64_t(4), int64_t(5),
                                           int64_t(255), int64_t(256), int64_t(257),
                                           // Around float4's small-n edge (under two
                                           // float4 blocks an SM), then float2
                                           // accesses with a tail of one.
                                           (int64_t(1) << 16) + 3, (int64_t(1) << 17) + 5,
                                           (int64_t(1) << 18) + 5, (int64_t(1) << 19) + 1,
                                           int64_t(1) << 20, (int64_t(1) << 20) - 1,
                                           int64_t(1000003), (int64_t(1) << 24) + 3,
                                           // float2 with streaming hints: the arrays
                                           // about fill the L2; float4 above twice it.
                                           (int64_t(1) << 22) + 3, (int64_t(1) << 23) - 1));

// The device reference is on the device only while a comparison runs: a
// learner's kernel, which runs between comparisons, cannot find it by
// scanning device memory. After a comparison the device holds what it held
// before it (the reference of 2^26 floats, 256 MiB, would show).
TEST_F(CudaVectorAdd, TheReferenceLeavesTheDeviceAfterEachComparison) {
  const int64_t n = int64_t(1) << 26;
  auto workload = device_->Prepare(MakeVectorAddProblem(n, kSeed), NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  ASSERT_TRUE((*workload)->Run(0).ok());
  auto free_bytes = [] {
    size_t free = 0, total = 0;
    EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    return int64_t(free);
  };
  // The first comparison makes the reference, the second reuses it.
  for (int comparison = 0; comparison < 2; ++comparison) {
    const int64_t before = free_bytes();
    auto all = (*workload)->CompareWithReference(Tolerances().against_reference.element);
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_TRUE(all->Passes(Tolerances().against_reference));
    const int64_t after = free_bytes();
    EXPECT_GT(after, before - (int64_t(64) << 20))
        << "comparison " << comparison << " left " << (before - after) / (1 << 20)
        << " MiB on the device";
  }
  // Reads of the reference come from the host's copy.
  std::vector<float> first(4);
  ASSERT_TRUE((*workload)->Read(proto::ops::OutputBuffer::kReference, 0, first).ok());
  std::vector<float> out(4);
  ASSERT_TRUE((*workload)->Read(proto::ops::OutputBuffer::kOutput, 0, out).ok());
  EXPECT_EQ(first, out);  // vector add's output is exact
}

TEST_F(CudaVectorAdd, DeviceReferenceIsExactAndItsComparisonMatchesTheHosts) {
  const int64_t n = 100003;
  auto workload = device_->Prepare(MakeVectorAddProblem(n, kSeed), NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  ASSERT_TRUE((*workload)->Run(0).ok());
  const std::vector<float> ref = ReadAll(**workload, proto::ops::OutputBuffer::kReference, n);
  const kernels::Comparison reference = AgainstExact(ref, Tolerances().reference.element);
  EXPECT_TRUE(reference.Passes(Tolerances().reference));
  EXPECT_EQ(reference.max_abs_error, 0);

  // The device's reduction is the host's over the same two buffers.
  const std::vector<float> out = ReadAll(**workload, proto::ops::OutputBuffer::kOutput, n);
  const kernels::Comparison host =
      kernels::Compare(out, ref, Tolerances().against_reference.element);
  auto device = (*workload)->CompareWithReference(Tolerances().against_reference.element);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(device->checked, host.checked);
  EXPECT_EQ(device->non_finite, host.non_finite);
  EXPECT_EQ(device->over_tolerance, host.over_tolerance);
  EXPECT_EQ(device->max_abs_error, host.max_abs_error);
  // Sums of squares in double, added in another order on the device: equal
  // to well within 1e-12 relative, not to the last bit.
  EXPECT_NEAR(device->sum_sq_ref, host.sum_sq_ref, 1e-12 * host.sum_sq_ref);
  EXPECT_EQ(device->worst_index, host.worst_index);

  // Reads outside the output are refused.
  std::vector<float> past(2);
  EXPECT_EQ((*workload)->Read(proto::ops::OutputBuffer::kOutput, n - 1, past).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CudaVectorAdd, PoisonedOutputIsAllNaNUntilAKernelWritesIt) {
  const int64_t n = 1001;
  const Problem problem = MakeVectorAddProblem(n, kSeed);
  auto workload = device_->Prepare(problem, NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  ASSERT_TRUE((*workload)->PoisonOutput().ok());
  for (float x : ReadAll(**workload, proto::ops::OutputBuffer::kOutput, n))
    ASSERT_TRUE(std::isnan(x));
  const kernels::Comparison exact = AgainstExact(
      ReadAll(**workload, proto::ops::OutputBuffer::kOutput, n), Tolerances().variant.element);
  EXPECT_EQ(exact.non_finite, uint64_t(n));
  EXPECT_FALSE(exact.Passes(Tolerances().variant));
}

TEST_F(CudaVectorAdd, CompareWithReferenceCountsACorruptedOutput) {
  // A run that passes, then its output overwritten with NaN: the device's
  // comparison counts every element, and the op's verifier fails it.
  const int64_t n = 4099;
  const Problem problem = MakeVectorAddProblem(n, kSeed);
  auto workload = device_->Prepare(problem, NeverCancelled);
  ASSERT_TRUE(workload.ok()) << workload.status();
  const std::unique_ptr<proto::ops::Verifier> verifier =
      problem.op->MakeVerifier(problem.request, problem.dtype);
  for (int variant : {0, 1}) {
    SCOPED_TRACE(problem.VariantName(size_t(variant)));
    ASSERT_TRUE((*workload)->Run(variant).ok());
    auto before = (*workload)->CompareWithReference(Tolerances().against_reference.element);
    ASSERT_TRUE(before.ok()) << before.status();
    EXPECT_TRUE(before->Passes(Tolerances().against_reference));

    ASSERT_TRUE((*workload)->PoisonOutput().ok());
    auto after = (*workload)->CompareWithReference(Tolerances().against_reference.element);
    ASSERT_TRUE(after.ok()) << after.status();
    EXPECT_EQ(after->checked, uint64_t(n));
    EXPECT_EQ(after->non_finite, uint64_t(n));
    EXPECT_EQ(after->over_tolerance, 0u);  // non-finite is counted apart
    EXPECT_EQ(after->worst_index, 0);      // infinite excess: the lowest index
    EXPECT_FALSE(after->Passes(Tolerances().against_reference));
    auto verification = verifier->Check(**workload);
    ASSERT_TRUE(verification.ok()) << verification.status();
    EXPECT_FALSE(verification->passed());
    EXPECT_EQ(verification->non_finite(), uint64_t(n));
    EXPECT_FALSE(verification->failure().empty());
  }
}

TEST_F(CudaVectorAdd, RefusesFp16) {
  Problem problem = MakeVectorAddProblem(16, kSeed);
  problem.dtype = kernels::DType::kFp16;
  problem.request.set_dtype(v1::DTYPE_FP16);
  auto workload = device_->Prepare(problem, NeverCancelled);
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(workload.status().message().find("fp32"), absl::string_view::npos) << workload.status();
}

TEST_F(CudaVectorAdd, OutOfMemoryIsResourceExhaustedAndTheDeviceStaysUsable) {
  auto huge = device_->Prepare(MakeVectorAddProblem(int64_t(1) << 42, kSeed), NeverCancelled);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(huge.status().message().find(std::to_string(int64_t(1) << 44)), absl::string_view::npos)
      << huge.status();
  EXPECT_TRUE(device_->Healthy());
  auto small = device_->Prepare(MakeVectorAddProblem(1000, kSeed), NeverCancelled);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_TRUE((*small)->Run(1).ok());
}

}  // namespace
}  // namespace kbench::server
