#include "kernels/cuda_runtime/l2_flusher.h"

#include <utility>

#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"
#include "kernels/cuda_runtime/l2_flush_kernel.h"

namespace kbench::kernels::cuda_runtime {

absl::StatusOr<L2Flusher> L2Flusher::Create(size_t l2_bytes) {
  const size_t bytes = L2FlushBytes(l2_bytes);
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
