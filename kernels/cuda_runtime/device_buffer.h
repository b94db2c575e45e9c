// DeviceBuffer: device memory owned by one object, freed by its destructor.
// Move-only; a moved-from buffer is empty. Memory comes from cudaMalloc on
// the calling thread's current device (256-byte aligned, so float4 access is
// safe from the base). No managed memory: asking for more than a card has
// can hang it (the device tool's notes). Threading: one thread at a time;
// work on the memory is ordered by the streams that use it, and the buffer
// must outlive the work enqueued on it.
#pragma once

#include <cstddef>

#include "absl/status/statusor.h"

namespace kbench::kernels::cuda_runtime {

class DeviceBuffer {
 public:
  // RESOURCE_EXHAUSTED, naming the bytes asked for and the bytes free, when
  // the device lacks the memory; INTERNAL for other CUDA errors.
  static absl::StatusOr<DeviceBuffer> Allocate(size_t bytes);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  DeviceBuffer(void* ptr, size_t bytes) : ptr_(ptr), bytes_(bytes) {}
  void Reset();

  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace kbench::kernels::cuda_runtime
