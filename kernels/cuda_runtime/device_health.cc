#include "kernels/cuda_runtime/device_health.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {

absl::Status DeviceHealth::CheckUsable() const {
  if (Healthy()) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  return absl::InternalError(absl::StrCat("CUDA device ", ordinal_,
                                          " is unusable after a sticky error (", first_error_,
                                          "); the process must be restarted"));
}

void DeviceHealth::Observe(const absl::Status& status) {
  const std::optional<cudaError_t> error = CudaErrorOf(status);
  if (error && IsSticky(*error)) {
    absl::MutexLock lock(&mu_);
    if (first_error_.empty()) first_error_ = std::string(status.message());
    healthy_.store(false, std::memory_order_release);
  }
}

}  // namespace kbench::kernels::cuda_runtime
