#include "server/metrics/live_gauges.h"

#include <string>

namespace kbench::server::metrics {

LiveGauges::LiveGauges(prometheus::Registry& registry)
    : queue_depth_(prometheus::BuildGauge()
                       .Name("kbench_queue_depth")
                       .Help("Runs waiting for a device.")
                       .Register(registry)
                       .Add({})),
      running_(prometheus::BuildGauge()
                   .Name("kbench_running_runs")
                   .Help("Runs on a device now.")
                   .Register(registry)
                   .Add({})),
      device_healthy_(prometheus::BuildGauge()
                          .Name("kbench_device_healthy")
                          .Help("1 while the device takes runs, 0 after an unrecoverable error.")
                          .Register(registry)) {}

void LiveGauges::Update(const LiveState& state) {
  queue_depth_.Set(state.info.queued());
  running_.Set(state.info.running());
  for (const v1::DeviceInfo& device : state.info.devices()) {
    device_healthy_.Add({{"device", std::to_string(device.index())}}).Set(device.healthy() ? 1 : 0);
  }
}

}  // namespace kbench::server::metrics
