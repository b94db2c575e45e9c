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

namespace kbench::ops {
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

}  // namespace
}  // namespace kbench::ops
