// L2Flusher: empties the device's L2 before a cold sample, as Nsight
// Compute's --cache-control all does: reads a buffer of twice the L2's size
// through it (what the previous sample left is evicted, its dirty lines
// written back), then discards the buffer's lines (l2_flush_kernel.h), so
// the timed kernel starts with an L2 that holds nothing valid and nothing
// dirty. The flush is enqueued on the sample's stream before its start
// event, so it is never inside a timing. The same flush, through
// l2_flush_c_api.h, is what the peers' scripts use before their cold calls.
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

  // Read, then discarded, by each flush; what it holds is never relied on.
  DeviceBuffer buffer_;
  // The read kernel's output, never written (l2_flush_kernel.h).
  DeviceBuffer sink_;
};

}  // namespace kbench::kernels::cuda_runtime
