#include "kernels/cuda_runtime/event_pair.h"

#include <utility>

#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {

absl::StatusOr<Event> Event::Create() {
  cudaEvent_t event = nullptr;
  // Blocking sync: the waiting host thread sleeps rather than spins, so a
  // long sample does not hold a CPU core that the gRPC server needs.
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventBlockingSync));
  return Event(event);
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Reset();
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

Event::~Event() { Reset(); }

void Event::Reset() {
  if (event_ != nullptr) cudaEventDestroy(event_);
  event_ = nullptr;
}

absl::StatusOr<EventPair> EventPair::Create() {
  KBENCH_ASSIGN_OR_RETURN(Event start, Event::Create());
  KBENCH_ASSIGN_OR_RETURN(Event stop, Event::Create());
  return EventPair(std::move(start), std::move(stop));
}

namespace {

// While `stream` is being captured into a graph, a plain record only orders
// work inside the graph; an external record becomes a node that records the
// event when the graph replays, which is what a timing needs.
absl::Status Record(cudaEvent_t event, cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamIsCapturing(stream, &capture));
  const unsigned flags =
      capture == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : cudaEventRecordDefault;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecordWithFlags(event, stream, flags));
  return absl::OkStatus();
}

}  // namespace

absl::Status EventPair::Start(cudaStream_t stream) { return Record(start_.get(), stream); }

absl::Status EventPair::Stop(cudaStream_t stream) { return Record(stop_.get(), stream); }

absl::StatusOr<double> EventPair::ElapsedMs() {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(stop_.get()));
  float ms = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
  return double(ms);
}

}  // namespace kbench::kernels::cuda_runtime
