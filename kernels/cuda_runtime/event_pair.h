// Event and EventPair: CUDA events owned by one object, destroyed by its
// destructor. Move-only. An EventPair brackets device work on one stream:
// Start() before the work, Stop() after it, then ElapsedMs() waits for the
// stop event and returns the device time between the two (resolution about
// half a microsecond). The host clock never enters a GPU timing. Start() and
// Stop() may also be called while the stream is captured into a CUDA graph:
// the records then happen when the graph replays. Threading: one thread at a
// time.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::kernels::cuda_runtime {

class Event {
 public:
  static absl::StatusOr<Event> Create();

  Event() = default;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();

  cudaEvent_t get() const { return event_; }

 private:
  explicit Event(cudaEvent_t event) : event_(event) {}
  void Reset();

  cudaEvent_t event_ = nullptr;
};

class EventPair {
 public:
  static absl::StatusOr<EventPair> Create();

  absl::Status Start(cudaStream_t stream);
  absl::Status Stop(cudaStream_t stream);
  // Blocks until the stop event completes; a kernel's fault surfaces here.
  absl::StatusOr<double> ElapsedMs();

 private:
  EventPair(Event start, Event stop) : start_(std::move(start)), stop_(std::move(stop)) {}

  Event start_;
  Event stop_;
};

}  // namespace kbench::kernels::cuda_runtime
