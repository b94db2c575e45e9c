// LiveGauges: the Prometheus gauges of the server's present state, set from
// a LiveState just before each scrape (the dashboard's /metrics does it):
//   kbench_queue_depth             runs waiting for a device,
//   kbench_running_runs            runs on a device,
//   kbench_device_healthy{device}  1 while the device (by index) takes runs,
//                                  0 after an unrecoverable error.
//
// Thread safety: Update may be called from any thread. The registry must
// outlive the object.
#pragma once

#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "server/live/live_state.h"

namespace kbench::server::metrics {

class LiveGauges {
 public:
  explicit LiveGauges(prometheus::Registry& registry);

  void Update(const LiveState& state);

 private:
  prometheus::Gauge& queue_depth_;
  prometheus::Gauge& running_;
  prometheus::Family<prometheus::Gauge>& device_healthy_;
};

}  // namespace kbench::server::metrics
