// NvmlClock: the SM clock of one GPU and whether it is throttled, read through
// NVML. libnvidia-ml.so.1 comes with the driver, so it is loaded at run time
// (dlopen) and nothing NVML is needed to build; without it Read() says
// nullopt and the runs go on.
//
// Throttled means NVML reports a reason that slows the run: software power
// cap, hardware slowdown, software or hardware thermal slowdown, or the
// hardware power brake. Not counted: GPU idle (the reading is taken between
// samples, when the GPU is briefly idle), the application-clock setting (the
// operator's configured ceiling), sync boost and the display-clock setting
// (neither is power or heat).
//
// The GPU is found by its PCI bus id, since CUDA's device order (fastest
// first by default) need not be NVML's. NVML stays loaded and initialised for
// the life of the process. Read() may be called from any thread.
#pragma once

#include <optional>
#include <string>

namespace kbench::kernels::cuda_runtime {

// One reading of the SM clock.
struct SmClock {
  double mhz = 0;
  bool throttled = false;
};

class NvmlClock {
 public:
  // pci_bus_id: as cudaDeviceGetPCIBusId writes it.
  static NvmlClock Open(const std::string& pci_bus_id);

  // nullopt when NVML is not usable here or the reading failed.
  std::optional<SmClock> Read() const;
  // The highest SM clock the GPU supports, in MHz; nullopt without NVML.
  std::optional<double> MaxSmClockMhz() const;
  // Why Read() returns nullopt; empty when NVML is usable.
  const std::string& unavailable_reason() const { return unavailable_reason_; }

  // The NVML functions used, bound at run time (defined in nvml_clock.cc).
  struct Api;

 private:
  NvmlClock(const Api* api, void* device, std::string unavailable_reason)
      : api_(api), device_(device), unavailable_reason_(std::move(unavailable_reason)) {}

  const Api* api_ = nullptr;
  void* device_ = nullptr;
  std::string unavailable_reason_;
};

}  // namespace kbench::kernels::cuda_runtime
