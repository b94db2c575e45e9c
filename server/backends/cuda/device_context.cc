#include "server/backends/cuda/device_context.h"

#include "server/cuda_runtime/cuda_status.h"

namespace kbench::server::cuda_backend {

absl::Status DeviceContext::Enter() const {
  if (absl::Status usable = health.CheckUsable(); !usable.ok()) return usable;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  return absl::OkStatus();
}

}  // namespace kbench::server::cuda_backend
