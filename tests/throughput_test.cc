// Ceilings of the same unit and conditions only, and never past 100%
// silently (server/worker/throughput.h).
#include "server/worker/throughput.h"

#include <gtest/gtest.h>

namespace kbench::server::worker {
namespace {

using kernels::DType;

const proto::ops::Work kBytes{proto::ops::Work::Unit::kBytes, 3e9, "bytes = 3 * n * 4"};
const proto::ops::Work kFlops{proto::ops::Work::Unit::kFlops, 2e12, "FLOPs = 4 * B * H * N^2 * d"};

v1::DeviceInfo Gpu() {
  v1::DeviceInfo d;
  d.set_copy_bandwidth_gbps(4000);
  d.set_matmul_tflops(800);
  d.set_matmul_bf16_tflops(700);
  return d;
}

TEST(Throughput, ColdVectorAddIsJudgedAgainstTheDramCopyBandwidth) {
  const v1::Throughput t = ThroughputOf(kBytes, 1.0, Gpu(), DType::kFp32, v1::TIMING_MODE_COLD);
  EXPECT_DOUBLE_EQ(t.value(), 3000);
  EXPECT_DOUBLE_EQ(t.fraction_of_ceiling(), 0.75);
  EXPECT_NE(t.ceiling().find("copy bandwidth 4000"), std::string::npos) << t.ceiling();
}

TEST(Throughput, HotVectorAddHasNoDramCeiling) {
  const v1::Throughput t = ThroughputOf(kBytes, 0.5, Gpu(), DType::kFp32, v1::TIMING_MODE_HOT);
  EXPECT_EQ(t.fraction_of_ceiling(), 0);
  EXPECT_EQ(t.ceiling().rfind("none: hot samples", 0), 0u) << t.ceiling();
}

TEST(Throughput, HotVectorAddUsesAnL2ResidentCeilingWhenMeasured) {
  v1::DeviceInfo device = Gpu();
  device.set_l2_copy_bandwidth_gbps(10000);
  const v1::Throughput t = ThroughputOf(kBytes, 0.5, device, DType::kFp32, v1::TIMING_MODE_HOT);
  EXPECT_DOUBLE_EQ(t.fraction_of_ceiling(), 0.6);
  EXPECT_NE(t.ceiling().find("L2-resident"), std::string::npos);
}

TEST(Throughput, EachSixteenBitDtypeHasItsOwnMatmulCeilingAndFp32None) {
  const v1::Throughput fp16 = ThroughputOf(kFlops, 4.0, Gpu(), DType::kFp16, v1::TIMING_MODE_COLD);
  EXPECT_DOUBLE_EQ(fp16.fraction_of_ceiling(), 500.0 / 800);
  EXPECT_NE(fp16.ceiling().find("fp16 matmul rate 800"), std::string::npos);
  const v1::Throughput bf16 = ThroughputOf(kFlops, 4.0, Gpu(), DType::kBf16, v1::TIMING_MODE_COLD);
  EXPECT_DOUBLE_EQ(bf16.fraction_of_ceiling(), 500.0 / 700);
  EXPECT_NE(bf16.ceiling().find("bf16 matmul rate 700"), std::string::npos);
  const v1::Throughput fp32 = ThroughputOf(kFlops, 4.0, Gpu(), DType::kFp32, v1::TIMING_MODE_COLD);
  EXPECT_EQ(fp32.fraction_of_ceiling(), 0);
  EXPECT_EQ(fp32.ceiling(), "none: no fp32 matmul rate measured");
}

TEST(Throughput, Bf16WithoutItsOwnCeilingGetsNoneRatherThanTheFp16One) {
  v1::DeviceInfo device = Gpu();
  device.set_matmul_bf16_tflops(0);
  const v1::Throughput t = ThroughputOf(kFlops, 4.0, device, DType::kBf16, v1::TIMING_MODE_COLD);
  EXPECT_EQ(t.fraction_of_ceiling(), 0);
  EXPECT_EQ(t.ceiling(), "none: no bf16 matmul rate measured");
}

TEST(Throughput, BeatingTheMeasuredCeilingIsSaidInItsText) {
  const v1::Throughput t = ThroughputOf(kBytes, 0.7, Gpu(), DType::kFp32, v1::TIMING_MODE_COLD);
  EXPECT_GT(t.fraction_of_ceiling(), 1);
  EXPECT_NE(t.ceiling().find("reached 107% of it"), std::string::npos) << t.ceiling();
}

}  // namespace
}  // namespace kbench::server::worker
