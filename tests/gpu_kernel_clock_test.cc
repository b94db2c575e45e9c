// The kernel clock (kernels/cuda_runtime/kernel_clock.h), which times every
// cold sample, on a kernel of known cost (the naive vector add at 2^24, about
// 70 us on an H100): its span covers the kernels alone, so it is shorter than
// CUDA events around the same launch, which also span the launch's start;
// it covers every kernel enqueued between Begin and End; and it takes no
// work from outside them; Release detaches CUPTI. Skipped where no CUDA device is
// present.
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda/vector_add/vector_add.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/device_buffer.h"
#include "kernels/cuda_runtime/event_pair.h"
#include "kernels/cuda_runtime/kernel_clock.h"
#include "kernels/cuda_runtime/stream.h"
#include "server/worker/backends/cuda/cuda_device.h"

namespace kbench::kernels::cuda_runtime {
namespace {

constexpr int64_t kN = int64_t(1) << 24;
constexpr int kSamples = 21;

class KernelClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto count = server::worker::backends::cuda::CudaDeviceCount(); !count.ok())
      GTEST_SKIP() << count.status().message();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    auto stream = Stream::Create();
    ASSERT_TRUE(stream.ok()) << stream.status();
    stream_.emplace(*std::move(stream));
    for (DeviceBuffer* buffer : {&a_, &b_, &c_}) {
      auto made = DeviceBuffer::Allocate(size_t(kN) * sizeof(float));
      ASSERT_TRUE(made.ok()) << made.status();
      *buffer = *std::move(made);
      ASSERT_EQ(cudaMemset(buffer->get(), 0, buffer->bytes()), cudaSuccess);
    }
    auto clock = KernelClock::Get();
    ASSERT_TRUE(clock.ok()) << "CUPTI should trace on the GPU machine: " << clock.status();
    clock_ = *clock;
  }

  absl::Status Launch(int times) {
    for (int i = 0; i < times; ++i)
      KBENCH_CUDA_RETURN_IF_ERROR(kernels::cuda::LaunchVectorAddNaive(
          a_.as<float>(), b_.as<float>(), c_.as<float>(), kN, stream_->get()));
    return absl::OkStatus();
  }

  // The median of the clock's spans over `launches` launches a sample, and
  // the median of events around the same launches.
  struct Medians {
    double clock_ms = 0, events_ms = 0;
  };
  absl::StatusOr<Medians> Time(int launches) {
    KBENCH_ASSIGN_OR_RETURN(EventPair events, EventPair::Create());
    KBENCH_RETURN_IF_ERROR(Launch(1));  // warm-up, untimed
    std::vector<double> clock, around;
    for (int i = 0; i < kSamples; ++i) {
      // The events inside the clock's window: no work of theirs is traced.
      KBENCH_RETURN_IF_ERROR(clock_->Begin());
      absl::Status launched = events.Start(stream_->get());
      if (launched.ok()) launched = Launch(launches);
      if (launched.ok()) launched = events.Stop(stream_->get());
      absl::StatusOr<double> span = clock_->End(stream_->get());
      KBENCH_RETURN_IF_ERROR(launched);
      KBENCH_RETURN_IF_ERROR(span.status());
      KBENCH_ASSIGN_OR_RETURN(const double ms, events.ElapsedMs());
      clock.push_back(*span);
      around.push_back(ms);
    }
    std::sort(clock.begin(), clock.end());
    std::sort(around.begin(), around.end());
    return Medians{clock[clock.size() / 2], around[around.size() / 2]};
  }

  std::optional<Stream> stream_;
  DeviceBuffer a_, b_, c_;
  KernelClock* clock_ = nullptr;
};

TEST_F(KernelClockTest, ASpanIsTheKernelAloneShorterThanEventsAroundItsLaunch) {
  const absl::StatusOr<Medians> one = Time(1);
  ASSERT_TRUE(one.ok()) << one.status();
  std::printf("kernel clock: naive vector add n=2^24: clock %.4f ms, events around it %.4f ms\n",
              one->clock_ms, one->events_ms);
  EXPECT_LT(one->clock_ms, one->events_ms);
  // The whole kernel, not a part of it: its 192 MiB cannot move faster than
  // 10 TB/s (twice any HBM of today). The events say nothing of that: with
  // the clock armed, a launch waits for the host longer (0.27 ms around a
  // 0.075 ms kernel on an H100).
  const double bytes = 12.0 * double(kN);
  EXPECT_GT(one->clock_ms, bytes / 10e12 * 1e3) << one->clock_ms;
}

TEST_F(KernelClockTest, ASpanCoversEveryKernelEnqueuedBetweenBeginAndEnd) {
  const absl::StatusOr<Medians> one = Time(1);
  const absl::StatusOr<Medians> three = Time(3);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_GT(three->clock_ms, 2.5 * one->clock_ms) << one->clock_ms << " " << three->clock_ms;
  EXPECT_LT(three->clock_ms, 3.5 * one->clock_ms) << one->clock_ms << " " << three->clock_ms;
}

TEST_F(KernelClockTest, WorkEnqueuedBeforeBeginIsNotInTheSpan) {
  // Three launches before Begin, still running when it is called, and one
  // after: the span is the one.
  std::vector<double> spans;
  for (int i = 0; i < kSamples; ++i) {
    ASSERT_TRUE(Launch(3).ok());
    ASSERT_TRUE(clock_->Begin().ok());
    const absl::Status launched = Launch(1);
    const absl::StatusOr<double> span = clock_->End(stream_->get());
    ASSERT_TRUE(launched.ok()) << launched;
    ASSERT_TRUE(span.ok()) << span.status();
    spans.push_back(*span);
  }
  std::sort(spans.begin(), spans.end());
  const absl::StatusOr<Medians> one = Time(1);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_LT(spans[spans.size() / 2], 1.5 * one->clock_ms);
}

TEST_F(KernelClockTest, EndWithoutBeginAndBeginTwiceAreErrors) {
  EXPECT_FALSE(clock_->End(stream_->get()).ok());
  ASSERT_TRUE(clock_->Begin().ok());
  EXPECT_FALSE(clock_->Begin().ok());
  ASSERT_TRUE(Launch(1).ok());
  EXPECT_TRUE(clock_->End(stream_->get()).ok());
}

// CUPTI attached slows every kernel of the process and attaching takes
// milliseconds, so End leaves it attached for the next span and Release
// detaches it: CUPTI (one subscriber a process) takes another subscriber only
// after Release, and the clock attaches again for the next span.
void CUPTIAPI IgnoreCall(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

TEST_F(KernelClockTest, ReleaseDetachesCuptiAndTheNextBeginAttachesAgain) {
  ASSERT_TRUE(clock_->Begin().ok());
  CUpti_SubscriberHandle other = nullptr;
  EXPECT_NE(cuptiSubscribe(&other, IgnoreCall, nullptr), CUPTI_SUCCESS)
      << "the clock holds CUPTI between Begin and End";
  ASSERT_TRUE(Launch(1).ok());
  EXPECT_FALSE(clock_->Release().ok()) << "Release between Begin and End";
  ASSERT_TRUE(clock_->End(stream_->get()).ok());
  EXPECT_NE(cuptiSubscribe(&other, IgnoreCall, nullptr), CUPTI_SUCCESS)
      << "End leaves CUPTI attached for the next span";
  ASSERT_TRUE(clock_->Release().ok());
  ASSERT_EQ(cuptiSubscribe(&other, IgnoreCall, nullptr), CUPTI_SUCCESS)
      << "CUPTI still has a subscriber after Release";
  EXPECT_EQ(cuptiUnsubscribe(other), CUPTI_SUCCESS);
  EXPECT_EQ(cuptiFinalize(), CUPTI_SUCCESS);
  ASSERT_TRUE(clock_->Begin().ok());
  ASSERT_TRUE(Launch(1).ok());
  const absl::StatusOr<double> span = clock_->End(stream_->get());
  ASSERT_TRUE(span.ok()) << span.status();
  EXPECT_GT(*span, 0);
  EXPECT_TRUE(clock_->Release().ok());
}

TEST_F(KernelClockTest, ASpanOfNoWorkIsAnErrorNotZero) {
  ASSERT_TRUE(clock_->Begin().ok());
  const absl::StatusOr<double> span = clock_->End(stream_->get());
  EXPECT_FALSE(span.ok());
}

}  // namespace
}  // namespace kbench::kernels::cuda_runtime
