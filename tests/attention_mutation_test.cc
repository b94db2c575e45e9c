// Mutation tests: each check of attention's verification must be able to
// fail. A test-only Device runs the CPU kernels with one injected bug each
// in its second variant (the first stays correct), through the real runner
// and the real op verifier, at fp32 and at the 16-bit and fp8 tolerances.
// 16-bit and fp8 runs are emulated on the CPU: inputs rounded to the dtype
// (what such a kernel reads) and the output rounded to the output's dtype
// (what it writes: bf16 for fp8); P is not rounded before P V, so the
// emulated variant is a little more accurate than a real kernel of the
// dtype.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/attention/cpu_attention.h"
#include "kernels/attention/simple_reference.h"
#include "kernels/attention/tolerances.h"
#include "kernels/dtype.h"
#include "kernels/seeded_input.h"
#include "proto/ops/attention/attention_op.h"
#include "server/worker/backends/cpu/cpu_workload.h"
#include "server/worker/runner.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

using kernels::AttentionShape;
using kernels::DType;

enum class Mutation {
  kNone,
  kSoftmaxScaleOnePercent,     // scores scaled by 1.01 / sqrt(d)
  kSoftmaxScaleThreePercent,   // scores scaled by 1.03 / sqrt(d)
  kSoftmaxScaleThirtyPercent,  // scores scaled by 1.3 / sqrt(d)
  kOneWrongElement,            // one element off by 0.05, mid-output
  kOneElementOffByHalf,        // one element off by 0.5, mid-output
  kWrongRowInLastHead,         // a row of the last batch-head copied from its neighbour
  kTailTileUnwritten,          // the last partial tile of query rows never written
  kCausalMaskOffByOne,         // query i attends to keys 0..i+1
  kPreviousOutputLeft,         // writes its output on the first run only
};

std::string NameOf(Mutation m) {
  switch (m) {
    case Mutation::kNone:
      return "Correct";
    case Mutation::kSoftmaxScaleOnePercent:
      return "SoftmaxScaleOnePercent";
    case Mutation::kSoftmaxScaleThreePercent:
      return "SoftmaxScaleThreePercent";
    case Mutation::kSoftmaxScaleThirtyPercent:
      return "SoftmaxScaleThirtyPercent";
    case Mutation::kOneWrongElement:
      return "OneWrongElement";
    case Mutation::kOneElementOffByHalf:
      return "OneElementOffByHalf";
    case Mutation::kWrongRowInLastHead:
      return "WrongRowInLastHead";
    case Mutation::kTailTileUnwritten:
      return "TailTileUnwritten";
    case Mutation::kCausalMaskOffByOne:
      return "CausalMaskOffByOne";
    case Mutation::kPreviousOutputLeft:
      return "PreviousOutputLeft";
  }
  return "";
}

// The factor a softmax-scale mutation puts on the scores; 1 for the others.
float SoftmaxScaleError(Mutation m) {
  switch (m) {
    case Mutation::kSoftmaxScaleOnePercent:
      return 1.01f;
    case Mutation::kSoftmaxScaleThreePercent:
      return 1.03f;
    case Mutation::kSoftmaxScaleThirtyPercent:
      return 1.3f;
    default:
      return 1;
  }
}

// Causal attention with the mask one key too wide: the bug under test.
void AttentionMaskOffByOne(const AttentionShape& shape, const float* q, const float* k,
                           const float* v, float* o) {
  const int64_t n = shape.seq_len, d = shape.head_dim;
  const float scale = 1.0f / std::sqrt(float(d));
  std::vector<float> p(n);
  for (int64_t bh = 0; bh < shape.BatchHeads(); ++bh) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t keys = std::min(i + 2, n);
      const float* qi = q + (bh * n + i) * d;
      float max = -INFINITY, sum = 0;
      for (int64_t j = 0; j < keys; ++j) {
        float dot = 0;
        for (int64_t x = 0; x < d; ++x) dot += qi[x] * k[(bh * n + j) * d + x];
        p[j] = dot * scale;
        max = std::max(max, p[j]);
      }
      for (int64_t j = 0; j < keys; ++j) sum += p[j] = std::exp(p[j] - max);
      float* oi = o + (bh * n + i) * d;
      for (int64_t x = 0; x < d; ++x) {
        float acc = 0;
        for (int64_t j = 0; j < keys; ++j) acc += p[j] * v[(bh * n + j) * d + x];
        oi[x] = acc / sum;
      }
    }
  }
}

// Variant 0 is the CPU fused kernel; variant 1 the same with `mutation`.
// The device reference is the CPU backend's (CpuWorkload).
class MutantWorkload final : public worker::backends::cpu::CpuWorkload {
 public:
  MutantWorkload(const Problem& problem, Mutation mutation)
      : CpuWorkload(proto::ops::ShapeOf(problem.request.attention()).TensorElements()),
        shape_(proto::ops::ShapeOf(problem.request.attention())),
        dtype_(problem.dtype),
        mutation_(mutation),
        q_(Input(problem, kernels::InputStream::kQ)),
        k_(Input(problem, kernels::InputStream::kK)),
        v_(Input(problem, kernels::InputStream::kV)) {}

 private:
  std::vector<float> Input(const Problem& problem, kernels::InputStream stream) const {
    std::vector<float> x(output_.size());
    kernels::FillSeeded(problem.request.seed(), stream, 0, x.size(), x.data());
    for (float& e : x) e = kernels::RoundTo(problem.dtype, e);
    return x;
  }

  // Drawn (and rounded to the dtype) by the constructor; only a run with a
  // learner's kernel redraws, and this test runs none.
  std::vector<std::pair<kernels::InputStream, std::span<float>>> Inputs() override {
    using kernels::InputStream;
    return {{InputStream::kQ, q_}, {InputStream::kK, k_}, {InputStream::kV, v_}};
  }

  float* Row(int64_t batch_head, int64_t row) {
    return output_.data() + (batch_head * shape_.seq_len + row) * shape_.head_dim;
  }

  void RunVariant(int variant) override {
    const Mutation m = variant == 0 ? Mutation::kNone : mutation_;
    if (m == Mutation::kPreviousOutputLeft && runs_++ > 0) return;
    const int64_t n = shape_.seq_len, d = shape_.head_dim;
    const int64_t tail =
        n % kernels::kCpuBlockQ == 0 ? kernels::kCpuBlockQ : n % kernels::kCpuBlockQ;
    std::vector<float> unwritten;
    if (m == Mutation::kTailTileUnwritten)
      for (int64_t bh = 0; bh < shape_.BatchHeads(); ++bh)
        unwritten.insert(unwritten.end(), Row(bh, n - tail), Row(bh, n - tail) + tail * d);
    if (m == Mutation::kCausalMaskOffByOne) {
      AttentionMaskOffByOne(shape_, q_.data(), k_.data(), v_.data(), output_.data());
    } else if (const float scale = SoftmaxScaleError(m); scale != 1) {
      std::vector<float> q = q_;
      for (float& e : q) e *= scale;
      kernels::AttentionFusedCpu(shape_, q.data(), k_.data(), v_.data(), output_.data());
    } else {
      kernels::AttentionFusedCpu(shape_, q_.data(), k_.data(), v_.data(), output_.data());
    }
    if (m == Mutation::kOneWrongElement) output_[output_.size() / 2 + 3] += 0.05f;
    if (m == Mutation::kOneElementOffByHalf) output_[output_.size() / 2 + 3] += 0.5f;
    if (m == Mutation::kWrongRowInLastHead) {
      const int64_t last = shape_.BatchHeads() - 1;
      std::copy_n(Row(last, n / 2 - 1), d, Row(last, n / 2));
    }
    if (m == Mutation::kTailTileUnwritten)
      for (int64_t bh = 0; bh < shape_.BatchHeads(); ++bh)
        std::copy_n(unwritten.begin() + bh * tail * d, tail * d, Row(bh, n - tail));
    for (float& e : output_) e = kernels::RoundTo(kernels::AttentionOutputDType(dtype_), e);
  }

  void RunReference(std::span<float> reference) override {
    kernels::AttentionSimpleReference(shape_, q_.data(), k_.data(), v_.data(), reference.data());
  }

  const AttentionShape shape_;
  const DType dtype_;
  const Mutation mutation_;
  std::vector<float> q_, k_, v_;
  int runs_ = 0;
};

class MutantDevice final : public worker::Device {
 public:
  explicit MutantDevice(Mutation mutation) : mutation_(mutation) {}
  v1::DeviceInfo Info() const override {
    v1::DeviceInfo info;
    info.set_backend("cpu");
    info.set_name("mutant CPU device");
    info.set_healthy(true);
    return info;
  }
  bool Healthy() const override { return true; }
  absl::StatusOr<std::unique_ptr<worker::Workload>> Prepare(
      const Problem& problem, const worker::GoOn& /*go_on*/) override {
    return std::make_unique<MutantWorkload>(problem, mutation_);
  }
  void StartClockWatch() override {}
  worker::ClockReading StopClockWatch() override { return {}; }

 private:
  const Mutation mutation_;
};

// B=2, H=3: 600 rows, more than the 256 checked against the double
// reference; N=100 leaves a partial tile of 4 rows for the CPU's 32.
AdmittedRun Attention(DType dtype, bool causal) {
  AdmittedRun run;
  run.problem.op = &proto::ops::AttentionOp();
  v1::AttentionProblem* p = run.problem.request.mutable_attention();
  p->set_batch(2);
  p->set_heads(3);
  p->set_seq_len(100);
  p->set_head_dim(32);
  p->set_causal(causal);
  run.problem.request.set_seed(11);
  run.problem.dtype = dtype;
  run.problem.variants = {proto::ops::kAttentionNaive, proto::ops::kAttentionFused};
  run.plan.warmup_runs = 1;
  run.plan.min_samples = 3;
  run.plan.max_samples = 3;
  run.plan.min_time_ms = 0;
  return run;
}

std::vector<v1::Verification> Verify(Mutation mutation, DType dtype, bool causal) {
  MutantDevice device(mutation);
  testing::RecordingSink sink;
  const absl::Status status = worker::RunJob(device, Attention(dtype, causal), "m", sink);
  EXPECT_TRUE(status.ok()) << status;
  std::vector<v1::Verification> out;
  for (const auto& e : sink.events())
    if (e.has_variant_result()) out.push_back(e.variant_result().verification());
  return out;
}

struct Case {
  Mutation mutation;
  DType dtype;
};

class AttentionMutation : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionMutation, FailsVerificationWhileTheCorrectVariantPasses) {
  const auto checks = Verify(GetParam().mutation, GetParam().dtype, /*causal=*/true);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_TRUE(checks[0].passed()) << "correct variant: " << checks[0].failure();
  EXPECT_FALSE(checks[1].passed())
      << "rel L2 " << checks[1].rel_l2_error() << " (tolerance " << checks[1].tolerance()
      << "), max abs " << checks[1].max_abs_error() << " (atol " << checks[1].atol() << ")";
  EXPECT_FALSE(checks[1].failure().empty());
}

// A 1% softmax-scale error moves O by about 3e-3 relative L2, which fp32
// and fp16 resolve (tolerances 1.7e-5 and 1.0e-3) but bf16 does not: its
// own rounding noise is 0.82 u = 3.2e-3 RMS, so its tolerance is 7.8e-3.
// At bf16 the scale bug tested is 3% (the old 1e-2 tolerance passed 2% at
// every dtype). fp8's tolerance holds P rounded to E4M3 (u = 2^-4): about
// 0.067 relative L2 and 0.063 absolute here, so the fp8 cases take a 30%
// scale bug and an element off by 0.5.
std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16, DType::kFp8}) {
    const Mutation scale = dtype == DType::kFp8    ? Mutation::kSoftmaxScaleThirtyPercent
                           : dtype == DType::kBf16 ? Mutation::kSoftmaxScaleThreePercent
                                                   : Mutation::kSoftmaxScaleOnePercent;
    const Mutation element =
        dtype == DType::kFp8 ? Mutation::kOneElementOffByHalf : Mutation::kOneWrongElement;
    for (Mutation m : {scale, element, Mutation::kWrongRowInLastHead, Mutation::kTailTileUnwritten,
                       Mutation::kCausalMaskOffByOne, Mutation::kPreviousOutputLeft})
      cases.push_back({m, dtype});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EachBugAtEachDtype, AttentionMutation, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return NameOf(info.param.mutation) + "_" +
                                  kernels::DTypeName(info.param.dtype);
                         });

TEST(AttentionMutation, CorrectVariantsPassAtEveryDtypeCausalOrNot) {
  for (DType dtype : {DType::kFp32, DType::kFp16, DType::kBf16, DType::kFp8}) {
    for (bool causal : {false, true}) {
      const auto checks = Verify(Mutation::kNone, dtype, causal);
      ASSERT_EQ(checks.size(), 2u);
      for (const auto& check : checks)
        EXPECT_TRUE(check.passed())
            << kernels::DTypeName(dtype) << " causal " << causal << ": " << check.failure();
    }
  }
}

TEST(AttentionMutation, AnOutputLeftFromAnEarlierRunIsCaughtByRepoisoning) {
  const auto checks = Verify(Mutation::kPreviousOutputLeft, DType::kFp32, true);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_GT(checks[1].non_finite(), 0u);
  EXPECT_NE(checks[1].failure().find("non-finite"), std::string::npos) << checks[1].failure();
}

}  // namespace
}  // namespace kbench::server
