#include "server/worker/backends/cuda/gpu_diagnosis.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kbench::server::worker::backends::cuda {

std::vector<DeviceNodeCheck> CheckNvidiaDeviceNodes() {
  std::vector<DeviceNodeCheck> nodes;
  for (const char* path : {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"}) {
    DeviceNodeCheck node{path};
    struct stat info;
    node.exists = stat(path, &info) == 0;
    if (node.exists) {
      const int fd = open(path, O_RDWR | O_CLOEXEC);
      node.open_errno = fd < 0 ? errno : 0;
      if (fd >= 0) close(fd);
    }
    nodes.push_back(node);
  }
  return nodes;
}

std::string ExplainNoCudaDevice(std::string_view cuda_error_name,
                                const std::vector<DeviceNodeCheck>& nodes,
                                std::string_view visible_devices) {
  for (const DeviceNodeCheck& node : nodes) {
    if (node.exists && (node.open_errno == EACCES || node.open_errno == EPERM)) {
      return absl::StrCat(
          node.path, " is denied (", std::strerror(node.open_errno),
          "): the service's device policy or the container's device list keeps the GPU out "
          "(systemd: DeviceAllow=char-nvidia, char-nvidiactl, char-nvidia-uvm; containers: the "
          "NVIDIA container toolkit, nvidia.com/gpu and runtimeClassName nvidia)");
    }
  }
  const bool control_node = !nodes.empty() && nodes.front().exists;
  if (!control_node) {
    return absl::StrCat("no ", nodes.empty() ? "/dev/nvidiactl" : nodes.front().path,
                        ": the NVIDIA driver is not loaded here (or the container was given no "
                        "GPU); install driver 580 or newer, and nvidia-smi must list the GPUs (",
                        std::string(cuda_error_name), ")");
  }
  if (cuda_error_name == "cudaErrorInsufficientDriver") {
    return "the NVIDIA driver is older than this build's CUDA 13.0 needs: install driver 580 or "
           "newer (cudaErrorInsufficientDriver)";
  }
  if (cuda_error_name == "cudaErrorNoDevice" && !visible_devices.empty()) {
    return absl::StrCat("CUDA_VISIBLE_DEVICES=", std::string(visible_devices),
                        " leaves no device visible (cudaErrorNoDevice)");
  }
  return absl::StrCat("the CUDA runtime found no usable device: ", std::string(cuda_error_name));
}

}  // namespace kbench::server::worker::backends::cuda
