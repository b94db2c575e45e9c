#include "server/worker/throughput.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kbench::server::worker {
namespace {

// Says so in the ceiling's text when the run beat the measured ceiling.
void NoteExceeded(v1::Throughput& t) {
  if (t.fraction_of_ceiling() > 1)
    t.set_ceiling(absl::StrCat(t.ceiling(),
                               absl::StrFormat("; this run reached %.0f%% of it, so the measured "
                                               "ceiling understates what the device can do",
                                               100 * t.fraction_of_ceiling())));
}

}  // namespace

v1::Throughput ThroughputOf(const proto::ops::Work& work, double median_ms,
                            const v1::DeviceInfo& device, kernels::DType dtype,
                            v1::TimingMode mode) {
  v1::Throughput t;
  t.set_formula(work.formula);
  double ceiling = 0;
  if (work.unit == proto::ops::Work::Unit::kBytes) {
    t.set_unit("GB/s");
    t.set_value(work.amount / (median_ms * 1e-3) / 1e9);
    if (mode == v1::TIMING_MODE_HOT) {
      ceiling = device.l2_copy_bandwidth_gbps();
      t.set_ceiling(ceiling > 0
                        ? absl::StrFormat("L2-resident copy bandwidth %.0f GB/s, measured by the "
                                          "server at start-up",
                                          ceiling)
                        : "none: hot samples read data the previous launch left in cache, so the "
                          "DRAM copy bandwidth is not their ceiling, and no cache-resident copy "
                          "bandwidth was measured");
    } else {
      ceiling = device.copy_bandwidth_gbps();
      if (ceiling > 0)
        t.set_ceiling(absl::StrFormat(
            "device copy bandwidth %.0f GB/s, measured by the server at start-up", ceiling));
    }
  } else {
    t.set_unit("TFLOP/s");
    t.set_value(work.amount / (median_ms * 1e-3) / 1e12);
    const char* name = kernels::DTypeName(dtype);
    ceiling = dtype == kernels::DType::kFp16   ? device.matmul_tflops()
              : dtype == kernels::DType::kBf16 ? device.matmul_bf16_tflops()
                                               : 0;
    t.set_ceiling(ceiling > 0
                      ? absl::StrFormat("%s matmul rate %.0f TFLOP/s, measured by the server "
                                        "at start-up",
                                        name, ceiling)
                      : absl::StrCat("none: no ", name, " matmul rate measured"));
  }
  if (ceiling > 0) t.set_fraction_of_ceiling(t.value() / ceiling);
  NoteExceeded(t);
  return t;
}

}  // namespace kbench::server::worker
