// A DashboardServer on a free loopback port over a SQLite store seeded with
// SeedCohort, and a fixed live state: device 0 (TestDevice) healthy, run
// "live-1" of ada running on it, run "live-2" of bob waiting.
#pragma once

#include <memory>

#include "prometheus/registry.h"
#include "server/http/dashboard_server.h"
#include "server/store/run_store.h"
#include "tests/temp_dir.h"

namespace kbench::testing {

class DashboardTestServer {
 public:
  // Fails the calling test (ASSERT) when the store or server cannot start;
  // check ok() after.
  DashboardTestServer();

  bool ok() const { return server_ != nullptr; }
  int port() const { return server_->port(); }
  server::store::RunStore& store() { return *store_; }
  prometheus::Registry& registry() { return registry_; }

 private:
  void Start();

  TempDir dir_;
  std::unique_ptr<server::store::RunStore> store_;
  prometheus::Registry registry_;
  std::unique_ptr<server::http::DashboardServer> server_;
};

// The live state the test server's provider returns.
server::LiveState TestLiveState();

}  // namespace kbench::testing
