// The tables of the live view: the runs the server holds now, and its
// devices with their health and the clocks their last runs saw.
#pragma once

#include "server/http/run_reader.h"
#include "server/http/table.h"
#include "server/live/live_state.h"

namespace kbench::server::http {

// The running runs, then the waiting ones in queue order: state ("running"
// or "waiting"), position (0 = next to start; null while running), run_id,
// learner, label, op, device (index; null while waiting),
// accepted_unix_ms, started_unix_ms (null while waiting).
Table LiveRunsTable(const LiveState& state);

// One row per device of state.info: index, name, backend, healthy,
// sm_count, max_sm_clock_mhz, copy_bandwidth_gbps, matmul_tflops, and, from
// the newest of `recent` (newest first) that ran on the device and read its
// clocks, last_sm_clock_mhz (the highest SM clock its variants saw),
// last_throttled and last_clock_unix_ms (null when no such run).
Table DevicesTable(const LiveState& state, const RunSet& recent);

}  // namespace kbench::server::http
