// A fixture for tests that need a CUDA device: device 0, opened once per
// suite (device_). Each test skips, with the reason, where no CUDA device is
// present, so the suite runs everywhere and reports itself skipped on
// machines without a GPU. And the problems of the registry's ops as
// admission makes them (server/run/run_plan.h): op, request with its seed,
// dtype, variants by id.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/attention/attention_shape.h"
#include "kernels/dtype.h"
#include "proto/ops/attention/attention_op.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/vector_add/vector_add_op.h"
#include "server/run/run_plan.h"
#include "server/worker/backends/cuda/cuda_device.h"
#include "server/worker/device.h"

namespace kbench::server {

// Device::Prepare's go_on for tests that never cancel.
inline absl::Status NeverCancelled() { return absl::OkStatus(); }

class CudaDeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!worker::backends::cuda::CudaDeviceCount().ok()) return;
    auto device = worker::backends::cuda::OpenCudaDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = *std::move(device);
  }
  static void TearDownTestSuite() { device_.reset(); }
  void SetUp() override {
    if (const auto count = worker::backends::cuda::CudaDeviceCount(); !count.ok())
      GTEST_SKIP() << count.status().message();
    ASSERT_NE(device_, nullptr);
  }

  static inline std::unique_ptr<worker::Device> device_;
};

// Vector add of n fp32 elements; variants are ids (ops::kVectorAdd*).
inline Problem MakeVectorAddProblem(int64_t n, uint64_t seed,
                                    std::vector<int> variants = {
                                        proto::ops::kVectorAddNaive,
                                        proto::ops::kVectorAddVectorized}) {
  Problem problem;
  problem.op = &proto::ops::VectorAddOp();
  problem.request.mutable_vector_add()->set_n(uint64_t(n));
  problem.request.set_seed(seed);
  problem.dtype = kernels::DType::kFp32;
  problem.request.set_dtype(proto::ops::ToProto(problem.dtype));
  problem.variants = std::move(variants);
  return problem;
}

// Attention of `shape` in `dtype`; variants are ids (ops::kAttention*).
inline Problem MakeAttentionProblem(const kernels::AttentionShape& shape, kernels::DType dtype,
                                    uint64_t seed,
                                    std::vector<int> variants = {proto::ops::kAttentionNaive,
                                                                 proto::ops::kAttentionFused}) {
  Problem problem;
  problem.op = &proto::ops::AttentionOp();
  v1::AttentionProblem* p = problem.request.mutable_attention();
  p->set_batch(uint32_t(shape.batch));
  p->set_heads(uint32_t(shape.heads));
  p->set_seq_len(uint32_t(shape.seq_len));
  p->set_head_dim(uint32_t(shape.head_dim));
  p->set_causal(shape.causal);
  problem.request.set_seed(seed);
  problem.dtype = dtype;
  problem.request.set_dtype(proto::ops::ToProto(dtype));
  problem.variants = std::move(variants);
  return problem;
}

// A short plan for runs whose results, not their timings, are under test.
inline TimingPlan ShortPlan() {
  TimingPlan plan;
  plan.warmup_runs = 1;
  plan.min_samples = 3;
  plan.min_time_ms = 0;
  plan.time_budget_ms = 500;
  plan.max_samples = 20;
  return plan;
}

}  // namespace kbench::server
