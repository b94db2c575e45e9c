// A fixture for tests that need a CUDA device: the first one, opened once per
// suite (device_). Each test skips, with the reason, where no CUDA device is
// present, so the suite runs everywhere and reports itself skipped on
// machines without a GPU.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "server/backends/cuda/cuda_device.h"
#include "server/device.h"

namespace kbench::server {

class CudaDeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!CudaDeviceCount().ok()) return;
    auto devices = OpenCudaDevices();
    ASSERT_TRUE(devices.ok()) << devices.status();
    device_ = std::move(devices->front());
  }
  static void TearDownTestSuite() { device_.reset(); }
  void SetUp() override {
    if (const auto count = CudaDeviceCount(); !count.ok())
      GTEST_SKIP() << count.status().message();
    ASSERT_NE(device_, nullptr);
  }

  static inline std::unique_ptr<Device> device_;
};

}  // namespace kbench::server
