// The parameter buffer of a learner's kernel's launch
// (proto/ops/kernel_arguments.h): each op's arguments in its ABI's order,
// buffers bound to the workload's pointers, scalars with the sizes and
// values the documented ABI gives (docs/KERNELS.md), and tables that
// disagree with the ABI refused.
#include "proto/ops/kernel_arguments.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::proto::ops {
namespace {

using ::testing::HasSubstr;

template <typename T>
T ValueOf(const KernelArgumentPack& pack, size_t i) {
  const std::span<const uint8_t> bytes = pack.Bytes(i);
  EXPECT_EQ(bytes.size(), sizeof(T)) << "parameter " << i;
  T value{};
  std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof value));
  return value;
}

// The vector add's arguments for n = 1027 over the buffers a, b and c.
absl::StatusOr<std::unique_ptr<KernelArgumentPack>> VectorAddPack(void* a, void* b, void* c) {
  v1::RunRequest request;
  request.mutable_vector_add()->set_n(1027);
  void* const buffers[] = {a, b, c};
  return KernelArgumentPack::Make(*AbiOf("vector_add"), request, buffers);
}

// Triton's hidden scratch pointers follow the op's arguments, null, and
// every parameter's pointer still points at its own value.
TEST(KernelArguments, TritonsHiddenPointersAreAppendedNull) {
  int a = 0, b = 0, c = 0;
  absl::StatusOr<std::unique_ptr<KernelArgumentPack>> pack = VectorAddPack(&a, &b, &c);
  ASSERT_TRUE(pack.ok()) << pack.status();
  (*pack)->AppendNullPointers(kTritonHiddenPointers);
  ASSERT_EQ((*pack)->size(), 6u);
  EXPECT_EQ(ValueOf<void*>(**pack, 0), &a);
  EXPECT_EQ(ValueOf<int64_t>(**pack, 3), 1027);
  EXPECT_EQ(ValueOf<void*>(**pack, 4), nullptr);
  EXPECT_EQ(ValueOf<void*>(**pack, 5), nullptr);
  void** params = (*pack)->Params();
  EXPECT_EQ(*static_cast<void**>(params[2]), &c);
  EXPECT_EQ(*static_cast<int64_t*>(params[3]), 1027);
  EXPECT_EQ(*static_cast<void**>(params[5]), nullptr);
}

TEST(KernelArguments, VectorAddIsABCAndN) {
  int a = 0, b = 0, c = 0;
  absl::StatusOr<std::unique_ptr<KernelArgumentPack>> pack = VectorAddPack(&a, &b, &c);
  ASSERT_TRUE(pack.ok()) << pack.status();
  ASSERT_EQ((*pack)->size(), 4u);
  EXPECT_EQ(ValueOf<void*>(**pack, 0), &a);
  EXPECT_EQ(ValueOf<void*>(**pack, 1), &b);
  EXPECT_EQ(ValueOf<void*>(**pack, 2), &c);
  EXPECT_EQ(ValueOf<long long>(**pack, 3), 1027);
  // cuLaunchKernel reads each parameter through Params()[i].
  long long n = 0;
  std::memcpy(&n, (*pack)->Params()[3], sizeof n);
  EXPECT_EQ(n, 1027);
}

TEST(KernelArguments, AttentionIsQKVOThenShapeScaleAndCausal) {
  v1::RunRequest request;
  v1::AttentionProblem* p = request.mutable_attention();
  p->set_batch(2);
  p->set_heads(3);
  p->set_seq_len(70);
  p->set_head_dim(64);
  p->set_causal(true);
  int q = 0, k = 0, v = 0, o = 0;
  void* const buffers[] = {&q, &k, &v, &o};
  absl::StatusOr<std::unique_ptr<KernelArgumentPack>> pack =
      KernelArgumentPack::Make(*AbiOf("attention"), request, buffers);
  ASSERT_TRUE(pack.ok()) << pack.status();
  ASSERT_EQ((*pack)->size(), 10u);
  EXPECT_EQ(ValueOf<void*>(**pack, 0), &q);
  EXPECT_EQ(ValueOf<void*>(**pack, 1), &k);
  EXPECT_EQ(ValueOf<void*>(**pack, 2), &v);
  EXPECT_EQ(ValueOf<void*>(**pack, 3), &o);
  EXPECT_EQ(ValueOf<int>(**pack, 4), 2);
  EXPECT_EQ(ValueOf<int>(**pack, 5), 3);
  EXPECT_EQ(ValueOf<int>(**pack, 6), 70);
  EXPECT_EQ(ValueOf<int>(**pack, 7), 64);
  EXPECT_EQ(ValueOf<float>(**pack, 8), 0.125f);  // 1 / sqrt(64)
  EXPECT_EQ(ValueOf<int>(**pack, 9), 1);
  p->set_causal(false);
  p->set_head_dim(40);
  pack = KernelArgumentPack::Make(*AbiOf("attention"), request, buffers);
  ASSERT_TRUE(pack.ok()) << pack.status();
  EXPECT_FLOAT_EQ(ValueOf<float>(**pack, 8), float(1 / std::sqrt(40.0)));
  EXPECT_EQ(ValueOf<int>(**pack, 9), 0);
}

TEST(KernelArguments, EveryArgumentHasItsParametersSize) {
  for (const char* op : {"vector_add", "attention"}) {
    const KernelAbi& abi = *AbiOf(op);
    v1::RunRequest request;
    if (abi.op == "attention") request.mutable_attention()->set_head_dim(64);
    const std::vector<KernelArgument> arguments = abi.arguments(request);
    ASSERT_EQ(arguments.size(), abi.parameters.size()) << op;
    for (size_t i = 0; i < arguments.size(); ++i)
      EXPECT_EQ(arguments[i].bytes(), abi.parameters[i].bytes) << op << " parameter " << i;
  }
}

TEST(KernelArguments, ATableThatDisagreesWithItsAbiIsRefused) {
  KernelAbi abi = *AbiOf("vector_add");
  v1::RunRequest request;
  request.mutable_vector_add()->set_n(8);
  int a = 0;
  void* const one[] = {&a};
  // Buffers 1 and 2 are not there.
  EXPECT_THAT(KernelArgumentPack::Make(abi, request, one).status().message(),
              HasSubstr("buffer 1; the workload has 1"));
  void* const three[] = {&a, &a, &a};
  abi.parameters.back().bytes = 4;  // as if n were an int
  EXPECT_THAT(KernelArgumentPack::Make(abi, request, three).status().message(),
              HasSubstr("argument 3 is 8 bytes; its parameter 'long long n' 4"));
  abi.parameters.pop_back();
  EXPECT_THAT(KernelArgumentPack::Make(abi, request, three).status().message(),
              HasSubstr("4 arguments; its ABI 3 parameters"));
}

}  // namespace
}  // namespace kbench::proto::ops
