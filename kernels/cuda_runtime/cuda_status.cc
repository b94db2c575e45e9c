#include "kernels/cuda_runtime/cuda_status.h"

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kbench::kernels::cuda_runtime {
namespace {

constexpr absl::string_view kPayloadUrl = "kbench.dev/cuda-error";

}  // namespace

absl::string_view ProjectPath(absl::string_view file) {
  for (absl::string_view root : {"/server/", "/kernels/", "/tools/", "/tests/"}) {
    if (const size_t at = file.rfind(root); at != absl::string_view::npos)
      return file.substr(at + 1);
  }
  return file;
}

absl::Status CudaError(cudaError_t error, const char* call, const char* file, int line) {
  // Resets the runtime's last error; a sticky error stays regardless.
  cudaGetLastError();
  const std::string message =
      absl::StrCat(call, " failed at ", ProjectPath(file), ":", line, ": ", cudaGetErrorName(error),
                   ": ", cudaGetErrorString(error));
  absl::Status status = error == cudaErrorMemoryAllocation ? absl::ResourceExhaustedError(message)
                                                           : absl::InternalError(message);
  status.SetPayload(kPayloadUrl, absl::Cord(absl::StrCat(int(error))));
  return status;
}

std::optional<cudaError_t> CudaErrorOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kPayloadUrl);
  int code = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &code)) return std::nullopt;
  return cudaError_t(code);
}

bool IsSticky(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorECCUncorrectable:
    case cudaErrorContained:
    case cudaErrorExternalDevice:
      return true;
    default:
      return false;
  }
}

}  // namespace kbench::kernels::cuda_runtime
