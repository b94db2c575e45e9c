// The server as it is now, for the dashboard's live view and the metrics'
// scrape-time gauges: its ServerInfo (devices with their health, the running
// and queued counts) and the runs it holds. The front supplies it through a
// LiveProvider, which the dashboard calls on its HTTP threads at each
// request and scrape: it must be safe to call from any thread, and quick.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kbench/v1/kbench.pb.h"

namespace kbench::server {

// A run the server holds: waiting for a device, or on one.
struct LiveRun {
  std::string run_id;
  // The authenticated user once identities exist; empty until then.
  std::string user;
  // The user's cohort; empty for admins and without identities.
  std::string cohort;
  // The client's address as gRPC reports it, e.g. "ipv4:127.0.0.1:50312".
  std::string peer;
  std::string label;
  std::string op;
  // Milliseconds since the Unix epoch; started_unix_ms is 0 while it waits.
  int64_t accepted_unix_ms = 0;
  int64_t started_unix_ms = 0;
  // The device that runs it; meaningful once started.
  uint32_t device_index = 0;
  // Its place in the queue as last told (0: next); meaningful while it waits.
  uint32_t queue_position = 0;
};

struct LiveState {
  // version, backend, devices (health, ceilings), running, queued.
  v1::ServerInfo info;
  // Runs waiting for a device, the next to start first.
  std::vector<LiveRun> waiting;
  // Runs on a device now.
  std::vector<LiveRun> running;
};

using LiveProvider = std::function<LiveState()>;

}  // namespace kbench::server
