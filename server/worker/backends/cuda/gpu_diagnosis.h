// Why no CUDA device could be opened, in words an operator can act on. The
// CUDA runtime's own error is often misleading (no driver at all reads
// "cudaErrorInsufficientDriver"), and a service whose device policy hides
// /dev/nvidiactl looks like a machine without a GPU. A GPU server that was
// asked for a GPU (--backend cuda) fails its start with this text rather
// than serving the CPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbench::server::worker::backends::cuda {

// One NVIDIA device node as this process sees it.
struct DeviceNodeCheck {
  std::string path;
  bool exists = false;
  int open_errno = 0;  // 0 when it opened for reading and writing
};

// /dev/nvidiactl, /dev/nvidia0 and /dev/nvidia-uvm, each stat'ed and opened.
std::vector<DeviceNodeCheck> CheckNvidiaDeviceNodes();

// The reason, from the runtime's error name (e.g. "cudaErrorNoDevice"), the
// nodes and CUDA_VISIBLE_DEVICES (empty when unset): a device node denied,
// no driver loaded, a driver too old for CUDA 13.0 (580 or newer), no
// device visible; else the runtime's error.
std::string ExplainNoCudaDevice(std::string_view cuda_error_name,
                                const std::vector<DeviceNodeCheck>& nodes,
                                std::string_view visible_devices);

}  // namespace kbench::server::worker::backends::cuda
