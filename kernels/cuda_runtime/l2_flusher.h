// L2Flusher: evicts the device's L2 before a cold sample by writing a buffer
// of twice the L2's size (read off the device) with cudaMemsetAsync, as
// nvbench does. Each flush writes a different byte value, so no level of the
// memory system can skip it as a repeat. The flush is enqueued on the
// sample's stream before its start event, so it is never inside a timing.
// Move-only (it owns its buffer); one thread at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/cuda_runtime/device_buffer.h"

namespace kbench::cuda {

class L2Flusher {
 public:
  // l2_bytes: cudaDevAttrL2CacheSize of the current device.
  static absl::StatusOr<L2Flusher> Create(size_t l2_bytes);

  // Enqueues the flush on `stream`; does not wait.
  absl::Status Flush(cudaStream_t stream);
  size_t bytes() const { return buffer_.bytes(); }

 private:
  explicit L2Flusher(DeviceBuffer buffer) : buffer_(std::move(buffer)) {}

  DeviceBuffer buffer_;
  unsigned char value_ = 0;
};

}  // namespace kbench::cuda
