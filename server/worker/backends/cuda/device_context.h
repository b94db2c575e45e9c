// DeviceContext: what one CUDA device's workloads share with the device: its
// ordinal, the stream every kernel, copy and timing event of the device goes
// on, the L2 flusher of cold samples, and the device's health. Owned jointly
// (shared_ptr) by the CudaDevice and its live workloads, and used by the one
// worker thread that runs the device's jobs (server/worker/device.h).
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/cuda_runtime/device_health.h"
#include "kernels/cuda_runtime/l2_flusher.h"
#include "kernels/cuda_runtime/stream.h"

namespace kbench::server::worker::backends::cuda {

struct DeviceContext {
  DeviceContext(int ordinal, kernels::cuda_runtime::Stream stream,
                kernels::cuda_runtime::L2Flusher flusher)
      : ordinal(ordinal), stream(std::move(stream)), flusher(std::move(flusher)), health(ordinal) {}

  // Makes this device current on the calling thread, after checking that no
  // sticky error has made it unusable. Every entry point calls it first.
  absl::Status Enter() const;

  // Passes a result through, letting kernels::cuda_runtime::DeviceHealth observe its error.
  absl::Status Track(absl::Status status) {
    health.Observe(status);
    return status;
  }
  template <typename T>
  absl::StatusOr<T> Track(absl::StatusOr<T> result) {
    health.Observe(result.status());
    return result;
  }

  const int ordinal;
  kernels::cuda_runtime::Stream stream;
  kernels::cuda_runtime::L2Flusher flusher;
  kernels::cuda_runtime::DeviceHealth health;
};

}  // namespace kbench::server::worker::backends::cuda
