#include "kernels/cuda_runtime/device_buffer.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(size_t bytes) {
  void* ptr = nullptr;
  const cudaError_t error = cudaMalloc(&ptr, bytes);
  if (error == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    int device = -1;
    cudaGetDevice(&device);
    return absl::ResourceExhaustedError(
        absl::StrCat("CUDA device ", device, " cannot allocate ", bytes, " bytes (", bytes >> 20,
                     " MiB): ", free_bytes >> 20, " MiB free of ", total_bytes >> 20, " MiB"));
  }
  KBENCH_CUDA_RETURN_IF_ERROR(error);
  return DeviceBuffer(ptr, bytes);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Reset(); }

void DeviceBuffer::Reset() {
  // Freeing cannot be reported from a destructor; after a sticky error it
  // fails, and the process is about to be restarted anyway.
  if (ptr_ != nullptr) cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
}

}  // namespace kbench::kernels::cuda_runtime
