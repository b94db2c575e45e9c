#include "kernels/cuda_runtime/l2_flusher.h"

#include <algorithm>
#include <utility>

#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/l2_flush_kernel.h"

namespace kbench::kernels::cuda_runtime {

absl::StatusOr<L2Flusher> L2Flusher::Create(size_t l2_bytes) {
  // A device that reports no L2 still gets a flush of a plausible size.
  // A multiple of the discard's 128-byte line.
  const size_t bytes = 2 * std::max<size_t>(l2_bytes, size_t(8) << 20) / 128 * 128;
  KBENCH_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::Allocate(bytes));
  KBENCH_ASSIGN_OR_RETURN(DeviceBuffer sink, DeviceBuffer::Allocate(sizeof(unsigned)));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemset(buffer.get(), 0, buffer.bytes()));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  return L2Flusher(std::move(buffer), std::move(sink));
}

absl::Status L2Flusher::Flush(cudaStream_t stream) {
  KBENCH_CUDA_RETURN_IF_ERROR(
      LaunchL2Flush(buffer_.get(), buffer_.bytes(), static_cast<unsigned*>(sink_.get()), stream));
  return absl::OkStatus();
}

}  // namespace kbench::kernels::cuda_runtime
