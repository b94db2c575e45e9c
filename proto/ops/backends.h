// The backends kbench has, by the names the API uses: DeviceInfo.backend,
// the backend of a variant's support (VariantSupport::backend), and the
// --backend flags of kbench-server and kbench-worker.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbench::proto::ops {

inline constexpr std::string_view kCpuBackend = "cpu";
inline constexpr std::string_view kCudaBackend = "cuda";
// --backend's choice of cuda where a GPU is present, else cpu.
inline constexpr std::string_view kAutoBackend = "auto";

// What --backend accepts: auto, cpu, cuda.
inline std::vector<std::string> BackendFlagChoices() {
  return {std::string(kAutoBackend), std::string(kCpuBackend), std::string(kCudaBackend)};
}

}  // namespace kbench::proto::ops
