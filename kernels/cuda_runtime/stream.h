// Stream: a CUDA stream owned by one object, destroyed by its destructor.
// Non-blocking (cudaStreamNonBlocking), so work on the legacy default stream
// of another library cannot slip between a sample's events. Move-only.
// Threading: a CUDA stream may be used from any thread; a sample's ordering is
// only meaningful when one thread enqueues on it at a time.
#pragma once

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::kernels::cuda_runtime {

class Stream {
 public:
  // On the calling thread's current device.
  static absl::StatusOr<Stream> Create();

  Stream() = default;
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  cudaStream_t get() const { return stream_; }
  // Waits for all work enqueued so far; a kernel's fault surfaces here.
  absl::Status Synchronize() const;

 private:
  explicit Stream(cudaStream_t stream) : stream_(stream) {}
  void Reset();

  cudaStream_t stream_ = nullptr;
};

}  // namespace kbench::kernels::cuda_runtime
