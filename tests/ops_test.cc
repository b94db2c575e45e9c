// Unit tests of the op catalogue (proto/ops): every op's variant table, the
// description of a problem every report and the dashboard show, and the
// backends' names.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "kernels/attention/attention_head_dims.h"
#include "proto/ops/attention/attention_op.h"
#include "proto/ops/backends.h"
#include "proto/ops/registry.h"
#include "proto/ops/vector_add/vector_add_op.h"
#include "proto/ops/verification.h"

namespace kbench::proto::ops {
namespace {

TEST(VariantTable, PutsEachEntryAtThePositionItsEnumNames) {
  enum Letters : int { kA, kB, kC };
  const std::vector<VariantSpec> table = VariantTable<Letters>(
      {{kC, {"c", "third", {}}}, {kA, {"a", "first", {}}}, {kB, {"b", "second", {}}}});
  ASSERT_EQ(table.size(), 3u);
  for (int id : {kA, kB, kC}) EXPECT_EQ(table[id].id, id);
  EXPECT_EQ(table[kA].name, "a");
  EXPECT_EQ(table[kB].name, "b");
  EXPECT_EQ(table[kC].name, "c");
}

TEST(OpVariants, EveryIdIsItsPositionAndEveryNameIsSetOnce) {
  for (const Op* op : AllOps()) {
    std::set<std::string> names;
    for (size_t i = 0; i < op->variants().size(); ++i) {
      const VariantSpec& variant = op->variants()[i];
      EXPECT_EQ(variant.id, int(i)) << op->name() << " " << variant.name;
      EXPECT_FALSE(variant.name.empty()) << op->name() << " row " << i;
      EXPECT_TRUE(names.insert(variant.name).second) << op->name() << " " << variant.name;
    }
  }
}

TEST(OpVariants, TheBackendsEnumsNameTheirRows) {
  EXPECT_EQ(VectorAddOp().variants()[kVectorAddNaive].name, "naive");
  EXPECT_EQ(VectorAddOp().variants()[kVectorAddVectorized].name, "vectorized");
  EXPECT_EQ(AttentionOp().variants()[kAttentionNaive].name, "naive");
  EXPECT_EQ(AttentionOp().variants()[kAttentionFused].name, "fused");
}

TEST(OpVariants, RunOnlyOnTheBackendsKbenchHas) {
  for (const Op* op : AllOps())
    for (const VariantSpec& variant : op->variants())
      for (const VariantSupport& support : variant.support)
        EXPECT_TRUE(support.backend == kCpuBackend || support.backend == kCudaBackend)
            << op->name() << " " << variant.name << ": " << support.backend;
}

TEST(DescribeProblem, WritesTheFieldsAsTheCliNamesThem) {
  v1::RunRequest vector_add;
  vector_add.mutable_vector_add()->set_n(1000);
  EXPECT_EQ(DescribeProblemOf(vector_add), "n=1000");
  EXPECT_EQ(VectorAddOp().Describe(vector_add), "vector_add n=1000");

  v1::RunRequest attention;
  v1::AttentionProblem* p = attention.mutable_attention();
  p->set_batch(2);
  p->set_heads(4);
  p->set_seq_len(1000);
  p->set_head_dim(64);
  p->set_causal(true);
  EXPECT_EQ(DescribeProblemOf(attention), "batch=2 heads=4 seq_len=1000 head_dim=64 causal");
  p->set_causal(false);
  EXPECT_EQ(AttentionOp().Describe(attention),
            "attention batch=2 heads=4 seq_len=1000 head_dim=64");
}

TEST(DescribeProblem, IsEmptyForARequestWithoutAProblem) {
  EXPECT_EQ(DescribeProblemOf(v1::RunRequest()), "");
}

TEST(AttentionLimits, DefaultHeadDimIsWhatTheKernelsRun) {
  v1::DeviceInfo cpu, gpu;
  gpu.set_sm_count(132);
  for (const v1::DeviceInfo& device : {cpu, gpu}) {
    v1::Limits limits;
    AttentionOp().SetDefaultLimits(device, limits);
    EXPECT_EQ(limits.max_head_dim(), uint32_t(kernels::kMaxAttentionHeadDim));
  }
}

// An output of 4 elements equal to their reference, with `guard` bytes of
// its guard region written and `changed` inputs.
class FakeOutput : public DeviceOutput {
 public:
  explicit FakeOutput(uint64_t guard, std::vector<ChangedInput> changed = {})
      : guard_(guard), changed_(std::move(changed)) {}
  absl::StatusOr<kernels::Comparison> CompareWithReference(
      const kernels::ElementTolerance& tolerance) override {
    kernels::Comparison c;
    for (int i = 0; i < 4; ++i) c.Add(i, float(i + 1), double(i + 1), tolerance);
    return c;
  }
  absl::Status Read(OutputBuffer, int64_t first, std::span<float> out) override {
    for (size_t i = 0; i < out.size(); ++i) out[i] = float(first + int64_t(i) + 1);
    return absl::OkStatus();
  }
  absl::StatusOr<uint64_t> GuardBytesWritten() override { return guard_; }
  absl::StatusOr<std::vector<ChangedInput>> InputsChanged() override { return changed_; }

 private:
  const uint64_t guard_;
  const std::vector<ChangedInput> changed_;
};

kernels::OpTolerances Exact() {
  kernels::OpTolerances tolerances;
  tolerances.variant.element = {1e-6, 1e-6};
  tolerances.variant.rel_l2 = 1e-6;
  tolerances.reference = tolerances.variant;
  tolerances.against_reference = tolerances.variant;
  return tolerances;
}

TEST(CheckOutput, AWritePastTheEndFailsVerificationThoughEveryElementIsRight) {
  const kernels::OpTolerances tolerances = Exact();
  const std::vector<double> exact = {1, 2, 3, 4};
  FakeOutput clean(0);
  absl::StatusOr<v1::Verification> ok =
      CheckOutput(clean, tolerances, {{0, 4}}, exact, "every element");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(ok->passed()) << ok->failure();
  FakeOutput past_the_end(8);
  absl::StatusOr<v1::Verification> caught =
      CheckOutput(past_the_end, tolerances, {{0, 4}}, exact, "every element");
  ASSERT_TRUE(caught.ok()) << caught.status();
  EXPECT_FALSE(caught->passed());
  EXPECT_EQ(caught->failure(),
            "wrote past the end of the output: 8 bytes of the guard region after it changed");
}

// A kernel that keeps its result in an input (to copy it out on a later
// launch) leaves a right output; the inputs it changed fail it.
TEST(CheckOutput, AWriteIntoAnInputFailsVerificationThoughEveryElementIsRight) {
  const std::vector<double> exact = {1, 2, 3, 4};
  FakeOutput one(0, {{"a", 1234567}});
  absl::StatusOr<v1::Verification> caught =
      CheckOutput(one, Exact(), {{0, 4}}, exact, "every element");
  ASSERT_TRUE(caught.ok()) << caught.status();
  EXPECT_FALSE(caught->passed());
  EXPECT_EQ(caught->failure(),
            "wrote into its inputs, which are read-only: 1,234,567 elements of a not as drawn");
  FakeOutput two(0, {{"q", 1}, {"v", 2}});
  caught = CheckOutput(two, Exact(), {{0, 4}}, exact, "every element");
  ASSERT_TRUE(caught.ok()) << caught.status();
  EXPECT_EQ(caught->failure(),
            "wrote into its inputs, which are read-only: 1 element of q not as drawn, 2 "
            "elements of v not as drawn");
  // A write past the end is named first.
  FakeOutput both(4, {{"a", 1}});
  caught = CheckOutput(both, Exact(), {{0, 4}}, exact, "every element");
  ASSERT_TRUE(caught.ok()) << caught.status();
  EXPECT_EQ(caught->failure(),
            "wrote past the end of the output: 4 bytes of the guard region after it changed");
}

}  // namespace
}  // namespace kbench::proto::ops
