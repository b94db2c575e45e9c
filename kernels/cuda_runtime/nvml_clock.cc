#include "kernels/cuda_runtime/nvml_clock.h"

#include <dlfcn.h>

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace kbench::kernels::cuda_runtime {

// The few NVML declarations used, as nvml.h gives them.
namespace {

using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

constexpr uint64_t kReasonSwPowerCap = 0x4;
constexpr uint64_t kReasonHwSlowdown = 0x8;
constexpr uint64_t kReasonSwThermalSlowdown = 0x20;
constexpr uint64_t kReasonHwThermalSlowdown = 0x40;
constexpr uint64_t kReasonHwPowerBrakeSlowdown = 0x80;
constexpr uint64_t kThrottlingReasons = kReasonSwPowerCap | kReasonHwSlowdown |
                                        kReasonSwThermalSlowdown | kReasonHwThermalSlowdown |
                                        kReasonHwPowerBrakeSlowdown;

}  // namespace

struct NvmlClock::Api {
  NvmlReturn (*init)();
  const char* (*error_string)(NvmlReturn);
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*);
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned*);
  NvmlReturn (*max_clock_info)(NvmlDevice, int, unsigned*);
  NvmlReturn (*throttle_reasons)(NvmlDevice, unsigned long long*);
};

namespace {

template <typename F>
bool Bind(void* library, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(library, name));
  return *f != nullptr;
}

struct Loaded {
  const NvmlClock::Api* api = nullptr;
  std::string error;
};

// Loads and initialises NVML once per process; the Api, or why not.
Loaded LoadNvml() {
  static const Loaded loaded = [] {
    Loaded result;
    void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      result.error = absl::StrCat("cannot load libnvidia-ml.so.1: ", dlerror());
      return result;
    }
    static NvmlClock::Api api;
    const bool bound =
        Bind(library, "nvmlInit_v2", &api.init) &&
        Bind(library, "nvmlErrorString", &api.error_string) &&
        Bind(library, "nvmlDeviceGetHandleByPciBusId_v2", &api.handle_by_pci_bus_id) &&
        Bind(library, "nvmlDeviceGetClockInfo", &api.clock_info) &&
        Bind(library, "nvmlDeviceGetMaxClockInfo", &api.max_clock_info) &&
        // Renamed "clocks event reasons" in newer drivers; same signature.
        (Bind(library, "nvmlDeviceGetCurrentClocksEventReasons", &api.throttle_reasons) ||
         Bind(library, "nvmlDeviceGetCurrentClocksThrottleReasons", &api.throttle_reasons));
    if (!bound) {
      result.error = "libnvidia-ml.so.1 lacks a function kbench uses";
      return result;
    }
    if (const NvmlReturn r = api.init(); r != kNvmlSuccess) {
      result.error = absl::StrCat("nvmlInit_v2 failed: ", api.error_string(r));
      return result;
    }
    result.api = &api;
    return result;
  }();
  return loaded;
}

}  // namespace

NvmlClock NvmlClock::Open(const std::string& pci_bus_id) {
  const Loaded nvml = LoadNvml();
  if (nvml.api == nullptr) return NvmlClock(nullptr, nullptr, nvml.error);
  NvmlDevice device = nullptr;
  if (const NvmlReturn r = nvml.api->handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
      r != kNvmlSuccess) {
    return NvmlClock(nullptr, nullptr,
                     absl::StrCat("NVML has no GPU at PCI bus id ", pci_bus_id, ": ",
                                  nvml.api->error_string(r)));
  }
  return NvmlClock(nvml.api, device, "");
}

std::optional<SmClock> NvmlClock::Read() const {
  if (api_ == nullptr) return std::nullopt;
  unsigned mhz = 0;
  unsigned long long reasons = 0;
  if (api_->clock_info(device_, kNvmlClockSm, &mhz) != kNvmlSuccess ||
      api_->throttle_reasons(device_, &reasons) != kNvmlSuccess)
    return std::nullopt;
  return SmClock{double(mhz), (reasons & kThrottlingReasons) != 0};
}

std::optional<double> NvmlClock::MaxSmClockMhz() const {
  unsigned mhz = 0;
  if (api_ == nullptr || api_->max_clock_info(device_, kNvmlClockSm, &mhz) != kNvmlSuccess)
    return std::nullopt;
  return double(mhz);
}

}  // namespace kbench::kernels::cuda_runtime
