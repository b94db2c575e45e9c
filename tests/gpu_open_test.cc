// Opening the CUDA backend: with no GPU or no driver it is an UNAVAILABLE
// status, never a crash or a hang (this test runs on CPU-only machines too);
// with a GPU, every device comes back with its properties and the ceilings
// it measured.
#include <gtest/gtest.h>

#include "server/backends/cuda/cuda_device.h"

namespace kbench::server {
namespace {

TEST(OpenCudaDevices, FailsWithUnavailableOrOpensEveryDevice) {
  const absl::StatusOr<int> count = CudaDeviceCount();
  auto devices = OpenCudaDevices();
  if (!count.ok()) {
    EXPECT_EQ(count.status().code(), absl::StatusCode::kUnavailable);
    ASSERT_FALSE(devices.ok());
    EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(devices.status().message().find("no CUDA device found"),
              absl::string_view::npos)
        << devices.status();
    return;
  }
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(int(devices->size()), *count);
  for (size_t i = 0; i < devices->size(); ++i) {
    const v1::DeviceInfo info = (*devices)[i]->Info();
    EXPECT_EQ(info.backend(), "cuda");
    EXPECT_EQ(info.index(), i);
    EXPECT_FALSE(info.name().empty());
    EXPECT_GT(info.sm_count(), 0u);
    EXPECT_GT(info.l2_bytes(), 0u);
    EXPECT_GT(info.memory_bytes(), 0u);
    EXPECT_GT(info.max_sm_clock_mhz(), 0);
    EXPECT_FALSE(info.compute_capability().empty());
    EXPECT_GT(info.copy_bandwidth_gbps(), 0);
    EXPECT_GT(info.matmul_tflops(), 0);
    EXPECT_TRUE(info.healthy());
  }
}

TEST(OpenCudaDevices, OffersVectorAddNaiveAndVectorizedInFp32AndAttention) {
  auto devices = OpenCudaDevices();
  if (!devices.ok()) GTEST_SKIP() << "no CUDA device: " << devices.status();
  const std::vector<v1::OpInfo> ops = devices->front()->Ops();
  // Attention's entry is specified in gpu_attention_test.cc.
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op(), "vector_add");
  ASSERT_EQ(ops[0].variants_size(), 2);
  EXPECT_EQ(ops[0].variants(0), "naive");
  EXPECT_EQ(ops[0].variants(1), "vectorized");
  ASSERT_EQ(ops[0].dtypes_size(), 1);
  EXPECT_EQ(ops[0].dtypes(0), v1::DTYPE_FP32);
  EXPECT_EQ(ops[1].op(), "attention");
}

}  // namespace
}  // namespace kbench::server
