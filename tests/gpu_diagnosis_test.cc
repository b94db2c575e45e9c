// Why no CUDA device opened, as the operator reads it (ExplainNoCudaDevice),
// and a GPU server asked for a GPU on a machine without one: it fails its
// start naming the reason, never serving the CPU.
#include <cerrno>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/worker/backends/cuda/gpu_diagnosis.h"

namespace kbench::server::worker::backends::cuda {
namespace {

using ::testing::HasSubstr;

std::vector<DeviceNodeCheck> Nodes(bool exist, int open_errno) {
  return {{"/dev/nvidiactl", exist, open_errno},
          {"/dev/nvidia0", exist, open_errno},
          {"/dev/nvidia-uvm", exist, open_errno}};
}

TEST(ExplainNoCudaDevice, ADeniedDeviceNodeIsNamedWithTheDevicePolicyToFix) {
  const std::string why = ExplainNoCudaDevice("cudaErrorNoDevice", Nodes(true, EACCES), "");
  EXPECT_THAT(why, HasSubstr("/dev/nvidiactl is denied"));
  EXPECT_THAT(why, HasSubstr("DeviceAllow=char-nvidia"));
}

TEST(ExplainNoCudaDevice, NoControlNodeMeansNoDriverLoaded) {
  const std::string why = ExplainNoCudaDevice("cudaErrorInsufficientDriver", Nodes(false, 0), "");
  EXPECT_THAT(why, HasSubstr("no /dev/nvidiactl: the NVIDIA driver is not loaded"));
  EXPECT_THAT(why, HasSubstr("580 or newer"));
}

TEST(ExplainNoCudaDevice, AnOldDriverIsToldItsMinimumVersion) {
  EXPECT_THAT(ExplainNoCudaDevice("cudaErrorInsufficientDriver", Nodes(true, 0), ""),
              HasSubstr("older than this build's CUDA 13.0 needs: install driver 580"));
}

TEST(ExplainNoCudaDevice, AnEmptyVisibleDeviceListIsNamed) {
  EXPECT_THAT(ExplainNoCudaDevice("cudaErrorNoDevice", Nodes(true, 0), "7"),
              HasSubstr("CUDA_VISIBLE_DEVICES=7 leaves no device visible"));
}

TEST(ExplainNoCudaDevice, AnyOtherErrorIsPassedOn) {
  EXPECT_THAT(ExplainNoCudaDevice("cudaErrorDevicesUnavailable", Nodes(true, 0), ""),
              HasSubstr("cudaErrorDevicesUnavailable"));
}

}  // namespace
}  // namespace kbench::server::worker::backends::cuda
