// Opening the CUDA backend: with no GPU or no driver, counting devices is an
// UNAVAILABLE status and opening one fails with a status, never a crash or
// a hang (this test runs on CPU-only machines too); with a GPU, every device
// opens with its properties and the ceilings it measured. What the CUDA
// backend offers comes from the ops' variant tables (host only).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/ops/backends.h"
#include "proto/ops/registry.h"
#include "server/worker/backends/cuda/cuda_device.h"
#include "server/worker/backends/cuda/cuda_workloads.h"

namespace kbench::server::worker::backends::cuda {
namespace {

TEST(OpenCudaDevice, FailsCleanlyWithoutADeviceOrOpensEveryDevice) {
  const absl::StatusOr<int> count = CudaDeviceCount();
  if (!count.ok()) {
    EXPECT_EQ(count.status().code(), absl::StatusCode::kUnavailable);
    // The reason in an operator's words (gpu_diagnosis.h).
    EXPECT_NE(count.status().message().find("no CUDA device: "), absl::string_view::npos)
        << count.status();
    const auto device = OpenCudaDevice(0);
    ASSERT_FALSE(device.ok());
    EXPECT_FALSE(device.status().message().empty());
    return;
  }
  ASSERT_GT(*count, 0);
  for (int i = 0; i < *count; ++i) {
    SCOPED_TRACE(i);
    const auto device = OpenCudaDevice(i);
    ASSERT_TRUE(device.ok()) << device.status();
    const v1::DeviceInfo info = (*device)->Info();
    EXPECT_EQ(info.backend(), "cuda");
    EXPECT_EQ(info.index(), uint32_t(i));
    EXPECT_FALSE(info.name().empty());
    EXPECT_GT(info.sm_count(), 0u);
    EXPECT_GT(info.l2_bytes(), 0u);
    EXPECT_GT(info.memory_bytes(), 0u);
    EXPECT_GT(info.max_sm_clock_mhz(), 0);
    EXPECT_FALSE(info.compute_capability().empty());
    EXPECT_GT(info.copy_bandwidth_gbps(), 0);
    EXPECT_GT(info.l2_copy_bandwidth_gbps(), 0);
    EXPECT_GT(info.matmul_tflops(), 0);
    EXPECT_GT(info.matmul_bf16_tflops(), 0);
    EXPECT_TRUE(info.healthy());
    EXPECT_TRUE((*device)->Healthy());
  }
  // Past the last ordinal: a status, not a crash.
  EXPECT_FALSE(OpenCudaDevice(*count).ok());
}

TEST(CudaOffers, VectorAddNaiveAndVectorizedInFp32AndAttention) {
  // Host only: what the CUDA backend offers is the ops' "cuda" support.
  const std::vector<v1::OpInfo> ops = proto::ops::OffersOf("cuda");
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op(), "vector_add");
  ASSERT_EQ(ops[0].variants_size(), 2);
  EXPECT_EQ(ops[0].variants(0), "naive");
  EXPECT_EQ(ops[0].variants(1), "vectorized");
  ASSERT_EQ(ops[0].dtypes_size(), 1);
  EXPECT_EQ(ops[0].dtypes(0), v1::DTYPE_FP32);
  // Attention's entry is specified in gpu_attention_test.cc.
  EXPECT_EQ(ops[1].op(), "attention");
}

TEST(CudaOpWorkloads, RegistersEveryOpThatOffersCudaVariantsOnce) {
  // Host only: each op's folder registers its CUDA workload.
  for (const proto::ops::Op* op : proto::ops::AllOps()) {
    bool offered = false;
    for (const proto::ops::VariantSpec& variant : op->variants())
      offered |= variant.On(proto::ops::kCudaBackend) != nullptr;
    int registered = 0;
    for (const worker::backends::cuda::CudaOpWorkload& workload :
         worker::backends::cuda::CudaOpWorkloads())
      registered += workload.op == op && workload.prepare != nullptr;
    EXPECT_EQ(registered, offered ? 1 : 0) << op->name();
  }
}

}  // namespace
}  // namespace kbench::server::worker::backends::cuda
