#include "server/run/limits.h"

#include "proto/ops/registry.h"

namespace kbench::server {

v1::Limits DefaultLimits(const v1::DeviceInfo& device) {
  v1::Limits limits;
  limits.set_max_warmup_runs(100);
  limits.set_max_samples(100000);
  limits.set_max_time_budget_ms(60000);
  limits.set_max_variants(4);
  limits.set_max_label_length(256);
  limits.set_max_queue(64);
  // A GPU sample or warm-up run takes milliseconds, a CPU one of the
  // largest attention seconds; a worker silent for this long is hung.
  limits.set_max_stall_seconds(device.sm_count() > 0 ? 60 : 300);
  // Preparing and verifying the largest problem on a CPU takes minutes.
  limits.set_max_run_overhead_seconds(device.sm_count() > 0 ? 60 : 300);
  limits.set_max_reader_stall_seconds(60);
  limits.set_max_streams_per_client(8);
  limits.set_max_kernels(4);
  limits.set_max_kernel_source_bytes(256 * 1024);
  for (const proto::ops::Op* op : proto::ops::AllOps()) op->SetDefaultLimits(device, limits);
  return limits;
}

TimingPlan DefaultTiming() { return TimingPlan{}; }

}  // namespace kbench::server
