#include "server/cuda/device_context.h"

#include "server/cuda/cuda_status.h"

namespace kbench::server::cuda {

absl::Status DeviceContext::Enter() const {
  if (absl::Status usable = health.CheckUsable(); !usable.ok()) return usable;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  return absl::OkStatus();
}

}  // namespace kbench::server::cuda
