// CublasHandle: a cuBLAS handle owned by one object, with a device workspace
// of its own; destroyed (handle first, then workspace) by its destructor.
// Move-only; a moved-from handle is empty.
//
// Bind(stream) is the one way to put the handle on a stream: cublasSetStream
// resets the workspace that cublasSetWorkspace set to cuBLAS's default pool,
// so Bind sets the stream and then the handle's workspace again. Call it
// before the GEMMs of each enqueue (it is host-side only, and cheap): GEMMs
// captured into a CUDA graph then use this workspace, not memory that cuBLAS
// allocates during capture.
//
// Threading: a handle, like the cuBLAS handle under it, is used by one thread
// at a time, on the device that was current when it was created.
//
// cuBLAS statuses become absl::Status through KBENCH_CUBLAS_RETURN_IF_ERROR,
// naming the call and its place; CUBLAS_STATUS_ALLOC_FAILED is
// RESOURCE_EXHAUSTED, everything else INTERNAL.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/cuda_runtime/device_buffer.h"

namespace kbench::kernels::cuda_runtime {

// cuBLAS's recommended workspace on Hopper.
inline constexpr size_t kCublasWorkspaceBytes = size_t(32) << 20;

absl::Status CublasError(cublasStatus_t status, const char* call, const char* file, int line);

class CublasHandle {
 public:
  // On the calling thread's current device.
  static absl::StatusOr<CublasHandle> Create(size_t workspace_bytes = kCublasWorkspaceBytes);

  CublasHandle() = default;
  CublasHandle(CublasHandle&&) noexcept = default;
  CublasHandle& operator=(CublasHandle&&) noexcept = default;

  // Runs the handle's calls on `stream`, with the handle's workspace.
  absl::Status Bind(cudaStream_t stream);
  cublasHandle_t get() const { return handle_.get(); }

 private:
  struct Destroy {
    void operator()(cublasHandle_t handle) const { cublasDestroy(handle); }
  };
  using Handle = std::unique_ptr<std::remove_pointer_t<cublasHandle_t>, Destroy>;

  CublasHandle(DeviceBuffer workspace, Handle handle)
      : workspace_(std::move(workspace)), handle_(std::move(handle)) {}

  // Declared first, so it outlives the handle that may still use it.
  DeviceBuffer workspace_;
  Handle handle_;
};

}  // namespace kbench::kernels::cuda_runtime

#define KBENCH_CUBLAS_RETURN_IF_ERROR(expr)                                                       \
  do {                                                                                            \
    if (const cublasStatus_t kbench_cublas_status_ = (expr);                                      \
        kbench_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                           \
      return ::kbench::kernels::cuda_runtime::CublasError(kbench_cublas_status_, #expr, __FILE__, \
                                                          __LINE__);                              \
  } while (0)
