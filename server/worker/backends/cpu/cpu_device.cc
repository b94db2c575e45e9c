#include "server/worker/backends/cpu/cpu_device.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "proto/ops/backends.h"
#include "server/worker/backends/cpu/cpu_workloads.h"

namespace kbench::server::worker::backends::cpu {
namespace {

using Clock = std::chrono::steady_clock;

std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "CPU";
}

uint64_t HostMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

// Bytes read + written per second by memcpy of 256 MiB, best of 3.
double MeasureCopyBandwidthGbps() {
  constexpr size_t kBytes = size_t(256) << 20;
  std::vector<char> src(kBytes, 1), dst(kBytes, 0);
  double best_ms = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    std::memcpy(dst.data(), src.data(), kBytes);
    best_ms =
        std::min(best_ms, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return 2.0 * double(kBytes) / (best_ms * 1e-3) / 1e9;
}

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(uint32_t index) {
    info_.set_backend(std::string(proto::ops::kCpuBackend));
    info_.set_name(CpuModelName());
    info_.set_index(index);
    info_.set_memory_bytes(HostMemoryBytes());
    info_.set_copy_bandwidth_gbps(MeasureCopyBandwidthGbps());
    info_.set_healthy(true);
  }

  v1::DeviceInfo Info() const override { return info_; }
  bool Healthy() const override { return true; }
  absl::StatusOr<std::unique_ptr<Workload>> Prepare(const Problem& problem,
                                                    const GoOn& go_on) override {
    return PrepareCpuWorkload(problem, go_on);
  }
  // The host's clocks are not read: every reading is unavailable.
  void StartClockWatch() override {}
  ClockReading StopClockWatch() override { return {}; }

 private:
  v1::DeviceInfo info_;
};

}  // namespace

std::unique_ptr<Device> MakeCpuDevice(uint32_t index) { return std::make_unique<CpuDevice>(index); }

}  // namespace kbench::server::worker::backends::cpu
