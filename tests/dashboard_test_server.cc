#include "tests/dashboard_test_server.h"

#include "tests/assignment_seed.h"

#include "gtest/gtest.h"
#include "server/store/unix_time.h"
#include "tests/dashboard_seed.h"
#include "tests/run_records.h"

namespace kbench::testing {

server::LiveState TestLiveState() {
  server::LiveState state;
  state.info.set_version("0.1.0");
  state.info.set_backend("cuda");
  v1::DeviceInfo& device = *state.info.add_devices();
  device = TestDevice();
  device.set_max_sm_clock_mhz(1980);
  // Runs accepted a little before now, as a live server holds them.
  const int64_t now = server::store::NowUnixMs();
  state.info.set_running(1);
  state.info.set_queued(1);
  server::LiveRun running;
  running.run_id = "live-1";
  running.user = "ada";
  running.label = "lab1-attention";
  running.op = "attention";
  running.accepted_unix_ms = now - 95'000;
  running.started_unix_ms = now - 12'000;
  state.running.push_back(running);
  server::LiveRun waiting;
  waiting.run_id = "live-2";
  waiting.peer = "ipv4:127.0.0.3:41000";
  waiting.user = "bob";
  waiting.label = "lab1-attention";
  waiting.op = "attention";
  waiting.accepted_unix_ms = now - 40'000;
  state.waiting.push_back(waiting);
  return state;
}

DashboardTestServer::DashboardTestServer(bool with_authentication, bool with_assignments) {
  Start(with_authentication, with_assignments);
}

void DashboardTestServer::Start(bool with_authentication, bool with_assignments) {
  absl::StatusOr<std::unique_ptr<server::store::RunStore>> store =
      server::store::OpenStore(dir_.path() + "/runs.db");
  ASSERT_TRUE(store.ok()) << store.status();
  store_ = *std::move(store);
  const absl::Status seeded = SeedCohort(*store_);
  ASSERT_TRUE(seeded.ok()) << seeded;
  if (with_authentication) {
    absl::StatusOr<std::unique_ptr<server::store::IdentityStore>> identities =
        server::store::OpenIdentityStore(dir_.path() + "/runs.db");
    ASSERT_TRUE(identities.ok()) << identities.status();
    identities_ = *std::move(identities);
    ASSERT_TRUE(identities_->AddCohort("fall24").ok());
    absl::StatusOr<std::vector<std::string>> tokens =
        identities_->AddUsers({{"grace", server::identity::Role::kInstructor, "fall24", ""}});
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    token_ = tokens->at(0);
    authenticator_ = std::make_unique<server::auth::TokenAuthenticator>(*identities_);
  }
  if (with_assignments) {
    absl::StatusOr<std::unique_ptr<server::store::AssignmentStore>> assignments =
        server::store::OpenAssignmentStore(dir_.path() + "/runs.db");
    ASSERT_TRUE(assignments.ok()) << assignments.status();
    assignments_ = *std::move(assignments);
    const absl::Status seeded_assignment = SeedAssignment(*store_, *assignments_);
    ASSERT_TRUE(seeded_assignment.ok()) << seeded_assignment;
    book_ = std::make_unique<server::AssignmentBook>(*assignments_, *store_, identities_.get(),
                                                     nullptr);
  }
  // TestLiveState, with the counts SetCounts gave.
  auto live = [this] {
    server::LiveState state = TestLiveState();
    state.info.set_running(running_);
    state.info.set_queued(queued_);
    return state;
  };
  absl::StatusOr<std::unique_ptr<server::http::DashboardServer>> server =
      server::http::DashboardServer::Start(*store_, live, registry_,
                                           {.listen = "127.0.0.1:0",
                                            .authenticator = authenticator_.get(),
                                            .assignments = book_.get()});
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *std::move(server);
}

}  // namespace kbench::testing
