#include "server/worker/backends/cuda/device_context.h"

#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::server::worker::backends::cuda {

absl::Status DeviceContext::Enter() const {
  KBENCH_RETURN_IF_ERROR(health.CheckUsable());
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  return absl::OkStatus();
}

}  // namespace kbench::server::worker::backends::cuda
