#include "server/http/live_tables.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "server/http/run_fields.h"

namespace kbench::server::http {

Table LiveRunsTable(const LiveState& state) {
  Table table{{"state", "position", "run_id", "learner", "label", "op", "device",
               "accepted_unix_ms", "started_unix_ms"}};
  for (const LiveRun& run : state.running) {
    table.rows.push_back({std::string("running"), std::monostate{}, run.run_id,
                          LearnerOf(run.user, run.peer), run.label, run.op,
                          static_cast<int64_t>(run.device_index), run.accepted_unix_ms,
                          run.started_unix_ms});
  }
  int64_t position = 0;
  for (const LiveRun& run : state.waiting) {
    table.rows.push_back({std::string("waiting"), position++, run.run_id,
                          LearnerOf(run.user, run.peer), run.label, run.op, std::monostate{},
                          run.accepted_unix_ms, std::monostate{}});
  }
  return table;
}

Table DevicesTable(const LiveState& state, const RunSet& recent) {
  Table table{{"index", "name", "backend", "healthy", "sm_count", "max_sm_clock_mhz",
               "copy_bandwidth_gbps", "matmul_tflops", "last_sm_clock_mhz", "last_throttled",
               "last_clock_unix_ms"}};
  for (const v1::DeviceInfo& device : state.info.devices()) {
    std::vector<Cell> row = {static_cast<int64_t>(device.index()),
                             device.name(),
                             device.backend(),
                             device.healthy(),
                             static_cast<int64_t>(device.sm_count()),
                             device.max_sm_clock_mhz(),
                             device.copy_bandwidth_gbps(),
                             device.matmul_tflops(),
                             std::monostate{},
                             std::monostate{},
                             std::monostate{}};
    for (const v1::RunRecord& run : recent.runs) {
      if (!run.has_device() || run.device().index() != device.index()) continue;
      double sm_clock_mhz = 0;
      bool throttled = false;
      for (const v1::VariantResult& result : run.results()) {
        if (!result.clocks().available()) continue;
        sm_clock_mhz = std::max(sm_clock_mhz, result.clocks().sm_clock_mhz_max());
        throttled = throttled || result.clocks().throttled();
      }
      if (sm_clock_mhz == 0) continue;
      row[8] = sm_clock_mhz;
      row[9] = throttled;
      row[10] = run.ended_unix_ms();
      break;
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace kbench::server::http
