// A DashboardServer on a free loopback port over a SQLite store seeded with
// SeedCohort, and a fixed live state: device 0 (TestDevice) healthy, run
// "live-1" of ada running on it, run "live-2" of bob waiting. With
// authentication, the store also holds the instructor "grace" of cohort
// "fall24", whose token token() is, and the API needs a token. With
// assignments, the store also holds SeedAssignment's (assignment_seed.h)
// and the dashboard serves /api/assignments/... from an AssignmentBook.
#pragma once

#include <atomic>
#include <memory>

#include "prometheus/registry.h"
#include "server/auth/token_authenticator.h"
#include "server/front/assignment_book.h"
#include "server/http/dashboard_server.h"
#include "server/store/assignment_store.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "tests/temp_dir.h"

namespace kbench::testing {

class DashboardTestServer {
 public:
  // Fails the calling test (ASSERT) when the store or server cannot start;
  // check ok() after.
  explicit DashboardTestServer(bool with_authentication = false, bool with_assignments = false);

  bool ok() const { return server_ != nullptr; }
  int port() const { return server_->port(); }
  server::store::RunStore& store() { return *store_; }
  prometheus::Registry& registry() { return registry_; }
  // grace's token; empty without authentication.
  const std::string& token() const { return token_; }
  // From now on the live state counts `running` and `queued` runs (1 and 1
  // at the start), as a server's would change under load.
  void SetCounts(int running, int queued) {
    running_ = running;
    queued_ = queued;
  }

 private:
  void Start(bool with_authentication, bool with_assignments);

  TempDir dir_;
  std::unique_ptr<server::store::RunStore> store_;
  std::unique_ptr<server::store::IdentityStore> identities_;
  std::unique_ptr<server::store::AssignmentStore> assignments_;
  std::unique_ptr<server::AssignmentBook> book_;
  std::unique_ptr<server::auth::TokenAuthenticator> authenticator_;
  std::string token_;
  prometheus::Registry registry_;
  std::atomic<int> running_ = 1;
  std::atomic<int> queued_ = 1;
  std::unique_ptr<server::http::DashboardServer> server_;
};

// The live state the test server's provider returns, before SetCounts.
server::LiveState TestLiveState();

}  // namespace kbench::testing
