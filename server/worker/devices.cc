#include "server/worker/devices.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/backends.h"
#include "server/common/log.h"
#include "server/worker/backends/cpu/cpu_device.h"
#if KBENCH_HAVE_CUDA
#include "server/worker/backends/cuda/cuda_device.h"
#include "server/worker/backends/cuda/printf_capture.h"
#endif

namespace kbench::server::worker {
namespace {

absl::StatusOr<uint32_t> CudaCount() {
#if KBENCH_HAVE_CUDA
  KBENCH_ASSIGN_OR_RETURN(const int count, backends::cuda::CudaDeviceCount());
  return uint32_t(count);
#else
  return absl::FailedPreconditionError(
      "this kbench was built without CUDA (KBENCH_CUDA=OFF or no nvcc); "
      "use --backend cpu");
#endif
}

}  // namespace

absl::StatusOr<std::string> ResolveBackend(const std::string& backend) {
  if (backend == proto::ops::kCpuBackend || backend == proto::ops::kCudaBackend) return backend;
  if (backend != proto::ops::kAutoBackend)
    return absl::InvalidArgumentError("--backend must be auto, cpu or cuda, not '" + backend + "'");
  const absl::StatusOr<uint32_t> cuda = CudaCount();
  if (cuda.ok()) return std::string(proto::ops::kCudaBackend);
  Log("--backend auto: using the CPU (", cuda.status().message(), ")");
  return std::string(proto::ops::kCpuBackend);
}

absl::StatusOr<uint32_t> DeviceCount(const std::string& backend) {
  if (backend == proto::ops::kCudaBackend) return CudaCount();
  return 1u;
}

absl::StatusOr<std::unique_ptr<Device>> OpenDevice(const std::string& backend, uint32_t index) {
  if (backend == proto::ops::kCpuBackend) return worker::backends::cpu::MakeCpuDevice(index);
#if KBENCH_HAVE_CUDA
  KBENCH_ASSIGN_OR_RETURN(const uint32_t count, CudaCount());
  if (index >= count)
    return absl::NotFoundError(absl::StrCat("there is no CUDA device ", index,
                                            ": the runtime sees ", count,
                                            count == 1 ? " device" : " devices"));
  return backends::cuda::OpenCudaDevice(int(index));
#else
  return CudaCount().status();
#endif
}

absl::Status CaptureKernelPrintf(const std::string& backend) {
  if (backend != proto::ops::kCudaBackend) return absl::OkStatus();
#if KBENCH_HAVE_CUDA
  static std::unique_ptr<worker::backends::cuda::PrintfCapture> capture;
  if (capture != nullptr) return absl::OkStatus();
  KBENCH_ASSIGN_OR_RETURN(capture, worker::backends::cuda::PrintfCapture::Start());
#endif
  return absl::OkStatus();
}

}  // namespace kbench::server::worker
