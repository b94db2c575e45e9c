// Attention on a CUDA device as a specification: every variant x dtype x
// causal x head_dim matches the double reference (kernels/reference.h) within
// its dtype's tolerance, on shapes whose N is not a multiple of any tile,
// with batch * heads above the H200's 132 SMs, and long rows that take the
// softmax's streaming path; every element of the output is written (it is
// poisoned with NaN before each run); unsupported head dims are refused.
// Then the same through the CUDA backend
// (server/backends/cuda/attention_workload.h): what Ops() lists, refusals with
// the right codes, a run checked and timed cold and hot (a CUDA graph around
// cuBLAS and the kernels). Skipped, with the reason, where no CUDA device is
// present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/attention_shape.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/seeded_fill.h"
#include "kernels/dtype.h"
#include "kernels/reference.h"
#include "kernels/verify.h"
#include "server/backends/cuda/cuda_device.h"
#include "server/cuda_runtime/cublas_handle.h"
#include "server/cuda_runtime/cuda_status.h"
#include "server/cuda_runtime/device_buffer.h"
#include "server/cuda_runtime/stream.h"
#include "server/status_macros.h"
#include "tests/cuda_device_test.h"

namespace kbench::kernels::cuda {
namespace {

using ::kbench::cuda::CublasHandle;
using ::kbench::cuda::DeviceBuffer;
using ::kbench::cuda::Stream;

constexpr uint64_t kSeed = 20261130;
// Rows checked against the reference: all of them up to 2048, else a sample
// whose reference costs about 2^28 multiply-adds (at least 64 rows).
int64_t CheckedRows(const AttentionShape& shape) {
  const int64_t budget = (int64_t(1) << 28) / (shape.seq_len * shape.head_dim);
  return std::clamp<int64_t>(budget, 64, 2048);
}

// The output of `dtype` on the device, copied to the host as float.
absl::StatusOr<std::vector<float>> ToHost(const DeviceBuffer& buffer,
                                          DType dtype, const Stream& stream) {
  const size_t n = buffer.bytes() / size_t(DTypeBytes(dtype));
  std::vector<float> out(n);
  std::vector<uint16_t> bits(dtype == DType::kFp32 ? 0 : n);
  void* host = dtype == DType::kFp32 ? static_cast<void*>(out.data())
                                     : static_cast<void*>(bits.data());
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(host, buffer.get(), buffer.bytes(),
                      cudaMemcpyDeviceToHost, stream.get()));
  KBENCH_RETURN_IF_ERROR(stream.Synchronize());
  if (dtype != DType::kFp32)
    for (size_t i = 0; i < n; ++i)
      out[i] = dtype == DType::kFp16 ? HalfBitsToFloat(bits[i])
                                     : Bf16BitsToFloat(bits[i]);
  return out;
}

AttentionShape Shape(int64_t b, int64_t h, int64_t n, int64_t d, bool causal) {
  AttentionShape s;
  s.batch = b;
  s.heads = h;
  s.seq_len = n;
  s.head_dim = d;
  s.causal = causal;
  return s;
}

TEST(CudaAttention, FusedRefusesHeadDimsItDoesNotRun) {
  // Host-side checks: no device needed.
  EXPECT_TRUE(FusedAttentionSupports(64));
  EXPECT_TRUE(FusedAttentionSupports(128));
  EXPECT_FALSE(FusedAttentionSupports(96));
  EXPECT_FALSE(FusedAttentionSupports(32));
  const AttentionTensors none;
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16})
    EXPECT_EQ(
        LaunchAttentionFused(Shape(1, 1, 64, 96, false), dtype, none, nullptr),
        cudaErrorInvalidValue);
}

enum class Variant { kNaive, kFused };

struct Case {
  Variant variant;
  DType dtype;
  bool causal;
  AttentionShape shape;  // causal is taken from `causal`
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return std::string(c.variant == Variant::kNaive ? "naive" : "fused") + "_" +
         DTypeName(c.dtype) + (c.causal ? "_causal" : "_full") + "_b" +
         std::to_string(c.shape.batch) + "h" + std::to_string(c.shape.heads) +
         "n" + std::to_string(c.shape.seq_len) + "d" +
         std::to_string(c.shape.head_dim);
}

// Test names and ctest names show the case, not its bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << CaseName(::testing::TestParamInfo<Case>(c, 0));
}

class CudaAttentionMatchesReference : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (const auto count = server::CudaDeviceCount(); !count.ok())
      GTEST_SKIP() << count.status().message();
    if (!stream_) {
      auto stream = Stream::Create();
      ASSERT_TRUE(stream.ok()) << stream.status();
      auto cublas = CublasHandle::Create();
      ASSERT_TRUE(cublas.ok()) << cublas.status();
      stream_ = std::make_unique<Stream>(*std::move(stream));
      cublas_ = std::make_unique<CublasHandle>(*std::move(cublas));
    }
  }
  static void TearDownTestSuite() {
    cublas_.reset();
    stream_.reset();
  }

  // Runs case `c` on `shape` with NaN-poisoned output; the output as float.
  static absl::StatusOr<std::vector<float>> Run(const Case& c,
                                                const AttentionShape& shape) {
    const cudaStream_t stream = stream_->get();
    const size_t bytes = size_t(shape.TensorElements()) * DTypeBytes(c.dtype);
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer q, DeviceBuffer::Allocate(bytes));
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer k, DeviceBuffer::Allocate(bytes));
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer v, DeviceBuffer::Allocate(bytes));
    KBENCH_ASSIGN_OR_RETURN(DeviceBuffer o, DeviceBuffer::Allocate(bytes));
    for (auto [buffer, input] :
         {std::pair{&q, InputStream::kQ}, std::pair{&k, InputStream::kK},
          std::pair{&v, InputStream::kV}}) {
      KBENCH_CUDA_RETURN_IF_ERROR(
          LaunchFillSeeded(c.dtype, kSeed, input, 0, buffer->get(),
                           shape.TensorElements(), stream));
    }
    // All bytes 0xFF: NaN in fp32, fp16 and bf16 alike.
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(o.get(), 0xFF, bytes, stream));

    DeviceBuffer scores;
    if (c.variant == Variant::kNaive) {
      KBENCH_ASSIGN_OR_RETURN(
          scores, DeviceBuffer::Allocate(size_t(shape.ScoreElements()) *
                                         DTypeBytes(c.dtype)));
      KBENCH_RETURN_IF_ERROR(cublas_->Bind(stream));
      KBENCH_CUBLAS_RETURN_IF_ERROR(AttentionScoresGemm(
          cublas_->get(), shape, c.dtype, q.get(), k.get(), scores.get()));
      KBENCH_CUDA_RETURN_IF_ERROR(
          LaunchAttentionSoftmax(shape, c.dtype, scores.get(), stream));
      KBENCH_CUBLAS_RETURN_IF_ERROR(AttentionOutputGemm(
          cublas_->get(), shape, c.dtype, scores.get(), v.get(), o.get()));
    } else {
      const AttentionTensors x{q.get(), k.get(), v.get(), o.get()};
      KBENCH_CUDA_RETURN_IF_ERROR(
          LaunchAttentionFused(shape, c.dtype, x, stream));
    }
    return ToHost(o, c.dtype, *stream_);
  }

  // The reference of a problem, shared by the variants that check it.
  static const std::vector<double>& Reference(
      const AttentionShape& shape, DType dtype,
      const std::vector<AttentionRow>& rows) {
    const auto key = std::make_tuple(shape.batch, shape.heads, shape.seq_len,
                                     shape.head_dim, shape.causal, int(dtype));
    auto it = references_.find(key);
    if (it == references_.end())
      it = references_
               .emplace(key, AttentionReferenceRows(shape, kSeed, dtype, rows))
               .first;
    return it->second;
  }

  static inline std::unique_ptr<Stream> stream_;
  static inline std::unique_ptr<CublasHandle> cublas_;
  static inline std::map<
      std::tuple<int64_t, int64_t, int64_t, int64_t, bool, int>,
      std::vector<double>>
      references_;
};

TEST_P(CudaAttentionMatchesReference, WritesEveryElementWithinTolerance) {
  const Case& c = GetParam();
  AttentionShape shape = c.shape;
  shape.causal = c.causal;
  const absl::StatusOr<std::vector<float>> output = Run(c, shape);
  ASSERT_TRUE(output.ok()) << output.status();
  const std::vector<float>& out = *output;
  int64_t non_finite = 0;
  for (float x : out) non_finite += !std::isfinite(x);
  EXPECT_EQ(non_finite, 0) << "elements left unwritten (NaN) or overflowed";

  const auto rows = SampleAttentionRows(shape, CheckedRows(shape), kSeed);
  const std::vector<double>& ref = Reference(shape, c.dtype, rows);
  ErrorStats errors;
  const int64_t d = shape.head_dim;
  for (size_t r = 0; r < rows.size(); ++r)
    for (int64_t x = 0; x < d; ++x)
      errors.Add(
          out[size_t((rows[r].batch_head * shape.seq_len + rows[r].row) * d +
                     x)],
          ref[r * d + x]);
  EXPECT_EQ(errors.checked(), uint64_t(rows.size() * d));
  EXPECT_TRUE(errors.Passes(Tolerance(c.dtype, /*attention=*/true)))
      << "rel L2 " << errors.rel_l2_error() << " (tolerance "
      << Tolerance(c.dtype, true) << "), max abs " << errors.max_abs_error();
}

std::vector<Case> Cases() {
  // N: 1; 77 (odd: scalar softmax, partial tiles everywhere); 200 (16-byte
  // rows, partial tiles); 129 with batch * heads = 150 > 132 SMs; 1000.
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {1, 1, 1}, {2, 3, 77}, {1, 2, 200}, {3, 50, 129}, {1, 1, 1000}};
  std::vector<Case> cases;
  for (Variant variant : {Variant::kNaive, Variant::kFused})
    for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16})
      for (bool causal : {false, true})
        for (int64_t d : {64, 128})
          for (const auto& [b, h, n] : shapes)
            cases.push_back(
                {variant, dtype, causal, Shape(b, h, n, d, causal)});
  // Longer rows: several key tiles and query blocks; the naive softmax's
  // block-per-row and streaming kernels (33000 fp16 scores a row do not fit
  // its registers).
  for (bool causal : {false, true}) {
    for (Variant variant : {Variant::kNaive, Variant::kFused})
      for (DType dtype : {DType::kFp32, DType::kFp16})
        cases.push_back(
            {variant, dtype, causal, Shape(1, 2, 4100, 128, causal)});
    cases.push_back({Variant::kNaive, DType::kFp16, causal,
                     Shape(1, 1, 33000, 64, causal)});
    cases.push_back({Variant::kNaive, DType::kFp32, causal,
                     Shape(1, 1, 33001, 64, causal)});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(VariantsDtypesShapes, CudaAttentionMatchesReference,
                         ::testing::ValuesIn(Cases()), CaseName);

}  // namespace
}  // namespace kbench::kernels::cuda

namespace kbench::kernels {
// Parameter tuples print the dtype by name.
void PrintTo(DType dtype, std::ostream* os) { *os << DTypeName(dtype); }
}  // namespace kbench::kernels

namespace kbench::server {
namespace {

constexpr uint64_t kSeed = 20261201;

// The first CUDA device, opened once for the suite.
class CudaAttentionDevice : public CudaDeviceTest {
 protected:
  static AttentionProblem Problem(int64_t b, int64_t h, int64_t n, int64_t d,
                                  bool causal, kernels::DType dtype,
                                  std::vector<std::string> variants) {
    AttentionProblem p;
    p.shape.batch = b;
    p.shape.heads = h;
    p.shape.seq_len = n;
    p.shape.head_dim = d;
    p.shape.causal = causal;
    p.dtype = dtype;
    p.seed = kSeed;
    p.variants = std::move(variants);
    return p;
  }
};

TEST_F(CudaAttentionDevice, OpsListAttentionWithItsDtypesAndHeadDims) {
  const std::vector<v1::OpInfo> ops = device_->Ops();
  const v1::OpInfo* attention = nullptr;
  for (const auto& op : ops)
    if (op.op() == "attention") attention = &op;
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(std::vector<std::string>(attention->variants().begin(),
                                     attention->variants().end()),
            (std::vector<std::string>{"naive", "fused"}));
  EXPECT_EQ(attention->dtypes_size(), 3);
  EXPECT_EQ(std::vector<uint32_t>(attention->head_dims().begin(),
                                  attention->head_dims().end()),
            (std::vector<uint32_t>{64, 128}));
}

TEST_F(CudaAttentionDevice, RefusesFusedHeadDimItDoesNotRunNamingTheSupported) {
  auto workload = device_->PrepareAttention(
      Problem(1, 1, 64, 96, false, kernels::DType::kFp16, {"fused"}));
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(workload.status().message().find("64, 128"), std::string::npos)
      << workload.status();
}

TEST_F(CudaAttentionDevice, RefusesUnknownVariant) {
  auto workload = device_->PrepareAttention(
      Problem(1, 1, 64, 64, false, kernels::DType::kFp32, {"flash"}));
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CudaAttentionDevice,
       NaiveScoresTooLargeForTheDeviceAreResourceExhausted) {
  // 2^21 x 2^21 fp16 scores: 8 TiB, more than any GPU has.
  auto workload = device_->PrepareAttention(Problem(
      1, 1, int64_t(1) << 21, 64, false, kernels::DType::kFp16, {"naive"}));
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(workload.status().message().find("bytes"), std::string::npos)
      << workload.status();
  EXPECT_TRUE(device_->Healthy());
}

class CudaAttentionDeviceDtypes
    : public CudaAttentionDevice,
      public ::testing::WithParamInterface<std::tuple<kernels::DType, bool>> {};

TEST_P(CudaAttentionDeviceDtypes, BothVariantsVerifiedAndTimedColdAndHot) {
  const auto [dtype, causal] = GetParam();
  const AttentionProblem problem =
      Problem(2, 3, 300, 128, causal, dtype, {"naive", "fused"});
  auto workload = device_->PrepareAttention(problem);
  ASSERT_TRUE(workload.ok()) << workload.status();
  const auto rows = kernels::SampleAttentionRows(problem.shape, 1 << 20, kSeed);
  const std::vector<double> ref =
      kernels::AttentionReferenceRows(problem.shape, kSeed, dtype, rows);
  for (int variant : {0, 1}) {
    SCOPED_TRACE(problem.variants[variant]);
    ASSERT_TRUE((*workload)->PoisonOutput().ok());
    ASSERT_TRUE((*workload)->Run(variant).ok());
    auto out = (*workload)->Output();
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(int64_t(out->size()), problem.shape.TensorElements());
    kernels::ErrorStats errors;
    for (size_t r = 0; r < rows.size(); ++r)
      for (int64_t x = 0; x < 128; ++x)
        errors.Add(
            (*out)[size_t((rows[r].batch_head * 300 + rows[r].row) * 128 + x)],
            ref[r * 128 + x]);
    EXPECT_EQ(errors.checked(), uint64_t(problem.shape.TensorElements()));
    EXPECT_EQ(errors.non_finite(), 0u);
    EXPECT_TRUE(errors.Passes(kernels::Tolerance(dtype, true)))
        << "rel L2 " << errors.rel_l2_error();
    for (v1::TimingMode mode : {v1::TIMING_MODE_COLD, v1::TIMING_MODE_HOT}) {
      auto ms = (*workload)->TimeSample(variant, mode);
      ASSERT_TRUE(ms.ok()) << ms.status();
      EXPECT_GT(*ms, 0);
    }
    // The timed runs (the hot ones replay a captured graph) computed the same
    // function: their output passes too.
    auto again = (*workload)->Output();
    ASSERT_TRUE(again.ok()) << again.status();
    kernels::ErrorStats timed;
    for (size_t r = 0; r < rows.size(); ++r)
      for (int64_t x = 0; x < 128; ++x)
        timed.Add((*again)[size_t(
                      (rows[r].batch_head * 300 + rows[r].row) * 128 + x)],
                  ref[r * 128 + x]);
    EXPECT_TRUE(timed.Passes(kernels::Tolerance(dtype, true)))
        << "rel L2 " << timed.rel_l2_error();
  }
  EXPECT_TRUE(device_->Healthy());
}

INSTANTIATE_TEST_SUITE_P(
    DtypesCausal, CudaAttentionDeviceDtypes,
    ::testing::Combine(::testing::Values(kernels::DType::kFp32,
                                         kernels::DType::kFp16,
                                         kernels::DType::kBf16),
                       ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<kernels::DType, bool>>& info) {
      return std::string(kernels::DTypeName(std::get<0>(info.param))) +
             (std::get<1>(info.param) ? "_causal" : "_full");
    });

}  // namespace
}  // namespace kbench::server
