// L2Flusher: evicts the device's L2 before a cold sample by reading a
// buffer of twice the L2's size (read off the device) through it. A read
// leaves clean lines: the timed kernel's misses evict them without writing
// anything back, as after Nsight Compute's flush (--cache-control all). A
// flush that wrote its buffer (cudaMemsetAsync, as nvbench does) left the
// L2 full of dirty lines whose write-back the next kernel paid: a naive
// vector add of 2^24 floats timed 16% above ncu's duration of it
// (docs/perf/learner_kernels.md). What the previous sample wrote is
// written back during the flush. The flush is enqueued on the sample's
// stream before its start event, so it is never inside a timing.
// Move-only (it owns its buffers); one thread at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/cuda_runtime/device_buffer.h"

namespace kbench::kernels::cuda_runtime {

class L2Flusher {
 public:
  // l2_bytes: cudaDevAttrL2CacheSize of the current device.
  static absl::StatusOr<L2Flusher> Create(size_t l2_bytes);

  // Enqueues the flush on `stream`; does not wait.
  absl::Status Flush(cudaStream_t stream);
  size_t bytes() const { return buffer_.bytes(); }

 private:
  L2Flusher(DeviceBuffer buffer, DeviceBuffer sink)
      : buffer_(std::move(buffer)), sink_(std::move(sink)) {}

  // Zeros, read by each flush.
  DeviceBuffer buffer_;
  // The read kernel's output, never written (l2_flush_kernel.h).
  DeviceBuffer sink_;
};

}  // namespace kbench::kernels::cuda_runtime
