#include "kernels/cuda_runtime/cublas_handle.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "kernels/cuda_runtime/cuda_status.h"

namespace kbench::kernels::cuda_runtime {

absl::Status CublasError(cublasStatus_t status, const char* call, const char* file, int line) {
  const std::string message = absl::StrCat(call, " failed at ", ProjectPath(file), ":", line, ": ",
                                           cublasGetStatusString(status));
  return status == CUBLAS_STATUS_ALLOC_FAILED ? absl::ResourceExhaustedError(message)
                                              : absl::InternalError(message);
}

absl::StatusOr<CublasHandle> CublasHandle::Create(size_t workspace_bytes) {
  KBENCH_ASSIGN_OR_RETURN(DeviceBuffer workspace, DeviceBuffer::Allocate(workspace_bytes));
  cublasHandle_t raw = nullptr;
  KBENCH_CUBLAS_RETURN_IF_ERROR(cublasCreate(&raw));
  return CublasHandle(std::move(workspace), Handle(raw));
}

absl::Status CublasHandle::Bind(cudaStream_t stream) {
  KBENCH_CUBLAS_RETURN_IF_ERROR(cublasSetStream(handle_.get(), stream));
  KBENCH_CUBLAS_RETURN_IF_ERROR(
      cublasSetWorkspace(handle_.get(), workspace_.get(), workspace_.bytes()));
  return absl::OkStatus();
}

}  // namespace kbench::kernels::cuda_runtime
