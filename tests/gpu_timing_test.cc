// The CUDA measurement engine on a kernel of known cost (vectorized vector
// add: 12 bytes an element): cold and hot samples are positive and finite,
// hot samples are per launch, bandwidth lands in a sane range of the copy
// ceiling measured at start-up, and the clock watch reads the SM clock
// around a real sample; a hot sample runs with CUPTI detached, and after
// another key's replay, or the workload's untimed work (a check, a poison),
// with the L2 emptied and one untimed replay of its own first. Skipped where
// no CUDA device is present.
#include <cupti.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/l2_flusher.h"
#include "kernels/cuda_runtime/sample_timer.h"
#include "kernels/cuda_runtime/stream.h"
#include "kernels/vector_add/tolerances.h"
#include "proto/ops/vector_add/vector_add_op.h"
#include "server/worker/backends/cuda/cuda_device.h"
#include "server/worker/backends/cuda/cuda_workload.h"
#include "tests/cuda_device_test.h"

namespace kbench::server {
namespace {

// Positions in the problem's variants (naive, vectorized).
constexpr int kVectorized = 1;

class CudaTiming : public CudaDeviceTest {
 protected:
  static std::unique_ptr<worker::Workload> Prepare(int64_t n) {
    auto workload = device_->Prepare(MakeVectorAddProblem(n, 7), NeverCancelled);
    EXPECT_TRUE(workload.ok()) << workload.status();
    return workload.ok() ? *std::move(workload) : nullptr;
  }

  // Median of `count` samples after one warm-up run.
  static double MedianMs(worker::Workload& workload, int variant, v1::TimingMode mode,
                         int count = 21) {
    EXPECT_TRUE(workload.Run(variant).ok());
    std::vector<double> ms;
    for (int i = 0; i < count; ++i) {
      auto sample = workload.TimeSample(variant, mode);
      EXPECT_TRUE(sample.ok()) << sample.status();
      if (sample.ok()) ms.push_back(*sample);
    }
    std::sort(ms.begin(), ms.end());
    return ms.empty() ? 0 : ms[ms.size() / 2];
  }
};

TEST_F(CudaTiming, ColdAndHotSamplesOfACacheSizedProblemArePositiveAndFinite) {
  // Inputs and output together take a quarter of the L2: all resident when
  // hot, all from HBM when cold. How much slower cold is, is a figure of the
  // benchmark (tools/bench/vector_add_table.py), not a test.
  const int64_t n = int64_t(device_->Info().l2_bytes() / 12 / 4);
  auto workload = Prepare(n);
  ASSERT_NE(workload, nullptr);
  const double cold = MedianMs(*workload, kVectorized, v1::TIMING_MODE_COLD);
  const double hot = MedianMs(*workload, kVectorized, v1::TIMING_MODE_HOT);
  EXPECT_TRUE(std::isfinite(cold) && cold > 0) << cold;
  EXPECT_TRUE(std::isfinite(hot) && hot > 0) << hot;
}

TEST_F(CudaTiming, ColdBandwidthOfALargeProblemIsNearTheCopyCeiling) {
  const int64_t n = int64_t(1) << 26;
  auto workload = Prepare(n);
  ASSERT_NE(workload, nullptr);
  const double ms = MedianMs(*workload, kVectorized, v1::TIMING_MODE_COLD);
  const double gbps = 12.0 * double(n) / (ms * 1e-3) / 1e9;
  const double ceiling = device_->Info().copy_bandwidth_gbps();
  EXPECT_GT(gbps, 0.3 * ceiling) << gbps << " GB/s against " << ceiling;
  EXPECT_LT(gbps, 1.5 * ceiling) << gbps << " GB/s against " << ceiling;
}

TEST_F(CudaTiming, AHotSampleIsTheTimeOfOneLaunch) {
  // Far larger than the L2: hot and cold both stream from HBM, so one
  // launch of either takes about as long.
  auto workload = Prepare(int64_t(1) << 26);
  ASSERT_NE(workload, nullptr);
  const double cold = MedianMs(*workload, kVectorized, v1::TIMING_MODE_COLD, 11);
  const double hot = MedianMs(*workload, kVectorized, v1::TIMING_MODE_HOT, 11);
  EXPECT_GT(hot, 0.5 * cold) << "cold " << cold << " ms, hot " << hot << " ms";
  EXPECT_LT(hot, 1.5 * cold) << "cold " << cold << " ms, hot " << hot << " ms";
}

// Two keys alternating as a run's variants do (A B, B A, ...): a key whose
// replay follows another key's (or a cold sample) gets the L2 emptied and
// one untimed replay first, so that its sample meets caches warm with its
// own work; one that follows itself, or is built (its build replays it),
// gets no extra replay.
TEST_F(CudaTiming, AHotSampleAfterAnotherKeysReplayFirstWarmsTheCachesWithItsOwn) {
  using kernels::cuda_runtime::DeviceBuffer;
  auto stream = kernels::cuda_runtime::Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  auto flusher = kernels::cuda_runtime::L2Flusher::Create(size_t(device_->Info().l2_bytes()));
  ASSERT_TRUE(flusher.ok()) << flusher.status();
  auto timer = kernels::cuda_runtime::SampleTimer::Create(stream->get(), &*flusher);
  ASSERT_TRUE(timer.ok()) << timer.status();
  auto buffer = DeviceBuffer::Allocate(size_t(1) << 20);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  auto fill = [&](int value) {
    return [&, value](cudaStream_t s) -> absl::Status {
      KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(buffer->get(), value, buffer->bytes(), s));
      return absl::OkStatus();
    };
  };
  auto a = fill(1), b = fill(2);
  const auto hot = [&](int key) {
    const absl::StatusOr<double> ms = key == 0 ? timer->Hot(0, a) : timer->Hot(1, b);
    EXPECT_TRUE(ms.ok() && *ms > 0) << (ms.ok() ? absl::OkStatus() : ms.status());
    return timer->WarmReplays();
  };
  EXPECT_EQ(hot(0), 0);  // built
  EXPECT_EQ(hot(1), 0);  // built
  EXPECT_EQ(hot(1), 0);  // after itself
  EXPECT_EQ(hot(0), 1);  // after key 1
  EXPECT_EQ(hot(0), 1);
  EXPECT_EQ(hot(1), 2);  // after key 0
  ASSERT_TRUE(timer->Cold(a).ok());
  EXPECT_EQ(hot(1), 3);  // after a cold sample
  EXPECT_EQ(hot(1), 3);
  timer->OtherWorkRan();
  EXPECT_EQ(hot(1), 4);  // after other work
  EXPECT_EQ(hot(1), 4);
}

// A run's checked round (poison, sample, comparison) leaves the check's lines
// in the L2; a run of one variant never switches keys, so the workload must
// tell the timer: its next hot sample warms the caches with its own work.
// (Vectorized vector add at 2^22 alone, whose evict-first lines do not
// displace the comparison's, read 15.1 us hot without it against 13.8 us,
// on an H100.)
TEST_F(CudaTiming, AHotSampleAfterTheWorkloadsUntimedWorkWarmsTheCachesWithItsOwn) {
  auto workload = Prepare(int64_t(1) << 20);
  ASSERT_NE(workload, nullptr);
  auto* cuda = dynamic_cast<worker::backends::cuda::CudaWorkload*>(workload.get());
  ASSERT_NE(cuda, nullptr);
  const auto hot = [&] {
    const absl::StatusOr<double> ms = workload->TimeSample(kVectorized, v1::TIMING_MODE_HOT);
    EXPECT_TRUE(ms.ok() && *ms > 0) << (ms.ok() ? absl::OkStatus() : ms.status());
    return cuda->WarmReplays();
  };
  EXPECT_EQ(hot(), 0);  // built
  EXPECT_EQ(hot(), 0);  // after itself
  ASSERT_TRUE(workload->PoisonOutput().ok());
  EXPECT_EQ(hot(), 1);  // after the poison
  const kernels::OpTolerances tolerances = kernels::VectorAddTolerances(kernels::DType::kFp32);
  auto comparison = workload->CompareWithReference(tolerances.against_reference.element);
  ASSERT_TRUE(comparison.ok()) << comparison.status();
  EXPECT_EQ(hot(), 2);  // after the comparison
  EXPECT_EQ(hot(), 2);
  ASSERT_TRUE(workload->Run(kVectorized).ok());
  EXPECT_EQ(hot(), 3);  // after an untimed run
}

// Cold samples leave CUPTI attached for the next one (the kernel clock);
// a hot sample releases it first, since attached it slows every launch:
// CUPTI (one subscriber a process) takes another subscriber only after.
void CUPTIAPI IgnoreCall(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

TEST_F(CudaTiming, AHotSampleRunsWithoutTheCuptiThatColdSamplesLeftAttached) {
  auto workload = Prepare(int64_t(1) << 20);
  ASSERT_NE(workload, nullptr);
  ASSERT_TRUE(workload->Run(kVectorized).ok());
  ASSERT_TRUE(workload->TimeSample(kVectorized, v1::TIMING_MODE_COLD).ok());
  CUpti_SubscriberHandle other = nullptr;
  EXPECT_NE(cuptiSubscribe(&other, IgnoreCall, nullptr), CUPTI_SUCCESS)
      << "a cold sample should leave the kernel clock's CUPTI attached";
  ASSERT_TRUE(workload->TimeSample(kVectorized, v1::TIMING_MODE_HOT).ok());
  ASSERT_EQ(cuptiSubscribe(&other, IgnoreCall, nullptr), CUPTI_SUCCESS)
      << "CUPTI still attached during a hot sample";
  EXPECT_EQ(cuptiUnsubscribe(other), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiFinalize(), CUPTI_SUCCESS);
}

TEST_F(CudaTiming, TimingMethodSaysHowEachModeMeasures) {
  auto workload = Prepare(1024);
  ASSERT_NE(workload, nullptr);
  const std::string cold = workload->TimingMethod(v1::TIMING_MODE_COLD);
  const std::string hot = workload->TimingMethod(v1::TIMING_MODE_HOT);
  EXPECT_NE(cold.find("L2"), std::string::npos) << cold;
  // Cold samples by the kernels' own times on the device (CUPTI traces on
  // the GPU machine), not by events around the launch.
  EXPECT_NE(cold.find("(CUPTI)"), std::string::npos) << cold;
  EXPECT_EQ(cold.find("CUDA events"), std::string::npos) << cold;
  EXPECT_NE(hot.find("CUDA graph"), std::string::npos) << hot;
  // Without a learner's kernel, hot launches run back to back, unpoisoned.
  EXPECT_EQ(hot.find("poisoned"), std::string::npos) << hot;
}

TEST_F(CudaTiming, ClockWatchReportsPlausibleSmClocksAroundASample) {
  // A sample that streams 768 MiB: the watch's side thread may poll during
  // it, and Start and Stop take a reading of their own in any case.
  auto workload = Prepare(int64_t(1) << 26);
  ASSERT_NE(workload, nullptr);
  ASSERT_TRUE(workload->Run(kVectorized).ok());
  for (v1::TimingMode mode : {v1::TIMING_MODE_COLD, v1::TIMING_MODE_HOT}) {
    SCOPED_TRACE(v1::TimingMode_Name(mode));
    device_->StartClockWatch();
    const absl::StatusOr<double> ms = workload->TimeSample(kVectorized, mode);
    const worker::ClockReading clock = device_->StopClockWatch();
    ASSERT_TRUE(ms.ok()) << ms.status();
    EXPECT_TRUE(std::isfinite(*ms) && *ms > 0) << *ms;
    if (!clock.available)
      GTEST_SKIP() << "clocks not available: NVML (libnvidia-ml.so.1) not "
                      "usable here";
    EXPECT_GT(clock.sm_clock_mhz_min, 100);
    EXPECT_LE(clock.sm_clock_mhz_min, clock.sm_clock_mhz_max);
    EXPECT_LE(clock.sm_clock_mhz_max, device_->Info().max_sm_clock_mhz());
  }
  // A watch with no sample in it still reads the clock at its two ends.
  device_->StartClockWatch();
  const worker::ClockReading idle = device_->StopClockWatch();
  EXPECT_TRUE(idle.available);
  EXPECT_GT(idle.sm_clock_mhz_max, 0);
}

}  // namespace
}  // namespace kbench::server
