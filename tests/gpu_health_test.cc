// How CUDA errors become statuses and when they make a device unhealthy.
// Host logic only: runs on CPU-only machines too.
#include <gtest/gtest.h>

#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_health.h"

namespace kbench::kernels::cuda_runtime {
namespace {

absl::Status Failing(cudaError_t error) {
  KBENCH_CUDA_RETURN_IF_ERROR(error);
  return absl::OkStatus();
}

TEST(CudaError, NamesTheCallThePlaceAndTheError) {
  const absl::Status status = Failing(cudaErrorIllegalAddress);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  const std::string message(status.message());
  EXPECT_EQ(message.rfind("error failed at tests/gpu_health_test.cc:", 0), 0u) << message;
  EXPECT_NE(message.find("cudaErrorIllegalAddress"), std::string::npos) << message;
  EXPECT_EQ(CudaErrorOf(status), cudaErrorIllegalAddress);
}

TEST(CudaError, OutOfMemoryIsResourceExhausted) {
  EXPECT_EQ(Failing(cudaErrorMemoryAllocation).code(), absl::StatusCode::kResourceExhausted);
}

TEST(CudaError, OtherStatusesCarryNoCudaError) {
  EXPECT_EQ(CudaErrorOf(absl::InternalError("not from CUDA")), std::nullopt);
  EXPECT_EQ(CudaErrorOf(absl::OkStatus()), std::nullopt);
}

TEST(DeviceHealth, AStickyErrorMakesTheDeviceUnusable) {
  DeviceHealth health(0);
  health.Observe(Failing(cudaErrorLaunchFailure));
  EXPECT_FALSE(health.Healthy());
  const absl::Status usable = health.CheckUsable();
  EXPECT_EQ(usable.code(), absl::StatusCode::kInternal);
  EXPECT_NE(usable.message().find("cudaErrorLaunchFailure"), absl::string_view::npos) << usable;
  EXPECT_NE(usable.message().find("restarted"), absl::string_view::npos);
}

TEST(DeviceHealth, APassingErrorLeavesTheDeviceHealthy) {
  DeviceHealth health(0);
  health.Observe(Failing(cudaErrorMemoryAllocation));
  health.Observe(Failing(cudaErrorInvalidValue));
  health.Observe(absl::InvalidArgumentError("bad variant"));
  EXPECT_TRUE(health.Healthy());
  EXPECT_TRUE(health.CheckUsable().ok());
}

TEST(DeviceHealth, KeepsTheFirstStickyError) {
  DeviceHealth health(3);
  health.Observe(Failing(cudaErrorIllegalAddress));
  health.Observe(Failing(cudaErrorLaunchFailure));
  const absl::Status usable = health.CheckUsable();
  EXPECT_NE(usable.message().find("device 3"), absl::string_view::npos);
  EXPECT_NE(usable.message().find("cudaErrorIllegalAddress"), absl::string_view::npos);
}

}  // namespace
}  // namespace kbench::kernels::cuda_runtime
