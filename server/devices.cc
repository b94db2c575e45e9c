#include "server/devices.h"

#include "absl/status/status.h"
#include "server/backends/cpu/cpu_device.h"
#include "server/log.h"
#if KBENCH_HAVE_CUDA
#include "server/backends/cuda/cuda_device.h"
#endif

namespace kbench::server {
namespace {

absl::StatusOr<std::vector<std::unique_ptr<Device>>> OpenCuda() {
#if KBENCH_HAVE_CUDA
  return OpenCudaDevices();
#else
  return absl::FailedPreconditionError(
      "this kbench-server was built without CUDA (KBENCH_CUDA=OFF or no nvcc); "
      "use --backend cpu");
#endif
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Device>>> OpenDevices(
    const std::string& backend) {
  if (backend == "cuda") return OpenCuda();
  if (backend == "auto") {
    auto cuda = OpenCuda();
    if (cuda.ok()) return cuda;
    Log("--backend auto: using the CPU (", cuda.status().message(), ")");
  } else if (backend != "cpu") {
    return absl::InvalidArgumentError("--backend must be auto, cpu or cuda, not '" +
                                      backend + "'");
  }
  std::vector<std::unique_ptr<Device>> devices;
  devices.push_back(cpu::MakeCpuDevice());
  return devices;
}

}  // namespace kbench::server
