// KernelClock: the device's own start and end times of the work a stretch of
// host calls enqueued, from CUPTI's activity records (the times Nsight
// Systems shows a kernel with). A cold sample is timed with it (SampleTimer::
// Cold), and the peers' scripts time theirs with the same code through
// kernel_clock_c_api.h.
//
// Why not CUDA events: a pair of events around a launch also spans the
// launch's start on the device, a fixed 1.1-1.5 us more than Nsight Compute's
// gpu__time_duration of the kernel on an H100, and 4 us more again after the
// device idled (docs/perf/cold_state.md): 2-4% of a 70 us kernel. The
// clock's span covers the kernels alone.
//
// Use: Begin(), enqueue the work on one stream (kernels, memsets and copies;
// any number, from the runtime or the driver API, this thread only), then
// End(stream), which waits for the stream and returns the span from the
// first start to the last end of what was enqueued in between, in ms. After
// a series of spans, Release().
//
// CUPTI attached slows every launch of the process, graph replays included
// (0.2-0.7 us a launch on an H100, docs/perf/kernel_clock.md), and attaching
// takes milliseconds, so Begin attaches it when it is not, End leaves it
// attached for the next span, and Release detaches it (cuptiFinalize, from
// the exit of a CUDA call as CUPTI asks): SampleTimer releases before every
// hot sample, the peers' cold_timing.py after each series of cold calls.
//
// One clock a process (CUPTI takes one subscriber a process): Get() makes it
// on first use, after attaching and detaching once, or says why it cannot (no
// CUPTI, no device, another tool holds CUPTI, as Nsight Compute and Nsight
// Systems do, or the environment sets KBENCH_KERNEL_CLOCK=off, to compare the
// two ways); callers then time with events and say so. Threading: from
// Begin to Release, one thread (the one that attached).
#pragma once

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::kernels::cuda_runtime {

class KernelClock {
 public:
  // The process's clock, or why there is none (the same answer every call).
  static absl::StatusOr<KernelClock*> Get();

  absl::Status Begin();
  absl::StatusOr<double> End(cudaStream_t stream);
  // Detaches CUPTI; no effect when it is not attached. An error between
  // Begin and End.
  absl::Status Release();

  // CUPTI's callbacks (kernel_clock.cc) report here.
  void OnApiEnter(uint32_t correlation_id);
  void OnApiExit();
  void OnRecord(uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns);

 private:
  KernelClock() = default;
  // Subscribes to the API calls and turns the activity records on.
  absl::Status Attach();
  // Turns the records off and detaches CUPTI from the process.
  absl::Status Detach();

  CUpti_SubscriberHandle subscriber_ = nullptr;  // while attached
  std::atomic<bool> detach_at_exit_{false};      // Detach's request to its call's exit
  std::mutex mu_;
  bool armed_ = false;                  // between Begin and End
  std::thread::id armed_by_;            // the thread that attached (Begin's)
  std::vector<uint32_t> correlations_;  // the API calls made while armed
  uint64_t first_start_ns_ = 0, last_end_ns_ = 0;
  int records_ = 0;  // of those calls' work
};

}  // namespace kbench::kernels::cuda_runtime
