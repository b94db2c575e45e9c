#include "kernels/cuda_runtime/l2_flusher.h"

#include <algorithm>
#include <utility>

#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::cuda {

absl::StatusOr<L2Flusher> L2Flusher::Create(size_t l2_bytes) {
  // A device that reports no L2 still gets a flush of a plausible size.
  const size_t bytes = 2 * std::max<size_t>(l2_bytes, size_t(8) << 20);
  KBENCH_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::Allocate(bytes));
  return L2Flusher(std::move(buffer));
}

absl::Status L2Flusher::Flush(cudaStream_t stream) {
  ++value_;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(buffer_.get(), value_, buffer_.bytes(), stream));
  return absl::OkStatus();
}

}  // namespace kbench::cuda
