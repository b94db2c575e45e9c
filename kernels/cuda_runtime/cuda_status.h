// CUDA runtime errors as absl::Status. Every CUDA call of the backend goes
// through KBENCH_CUDA_RETURN_IF_ERROR, so a failure names the call's text and
// its place, e.g.
//   INTERNAL: cudaStreamSynchronize(stream_) failed at
//   kernels/cuda_runtime/stream.cc:31: cudaErrorIllegalAddress: an illegal
//   memory access was encountered
// Codes: cudaErrorMemoryAllocation is RESOURCE_EXHAUSTED; everything else
// INTERNAL (a device failure, or a bug of ours). The cudaError_t travels in a
// payload of the Status, so DeviceHealth can tell a sticky error (one that
// leaves the CUDA context unusable until the process exits) from a passing
// one.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kbench::kernels::cuda_runtime {

// Builds the Status of a failed call and clears CUDA's last error, so a
// passing error is not reported again by the next launch check.
absl::Status CudaError(cudaError_t error, const char* call, const char* file, int line);

// `file` (a __FILE__) from the project root, so messages do not carry the
// build host's directories.
absl::string_view ProjectPath(absl::string_view file);

// The CUDA error a Status was made from, if CudaError made it.
std::optional<cudaError_t> CudaErrorOf(const absl::Status& status);

// True for the errors after which the process's CUDA context is unusable
// (illegal address, launch failure, device assert, ...): the CUDA runtime
// returns the same error from every later call.
bool IsSticky(cudaError_t error);

}  // namespace kbench::kernels::cuda_runtime

#define KBENCH_CUDA_RETURN_IF_ERROR(expr)                                                    \
  do {                                                                                       \
    if (const cudaError_t kbench_cuda_error_ = (expr); kbench_cuda_error_ != cudaSuccess)    \
      return ::kbench::kernels::cuda_runtime::CudaError(kbench_cuda_error_, #expr, __FILE__, \
                                                        __LINE__);                           \
  } while (0)
