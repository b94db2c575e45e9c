// kbench-server assembled: the store and who its callers are
// (open_stores.h), the workers behind the scheduler (start_scheduler.h),
// the gRPC services (front_services.h), the watch that ends a revoked
// user's runs (revocation_watch.h), the dashboard (start_dashboard.h)
// and the gRPC servers (grpc_listeners.h), started in that order; and the
// drain that ends them.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/app/front_services.h"
#include "server/app/grpc_listeners.h"
#include "server/app/open_stores.h"
#include "server/app/server_flags.h"
#include "server/app/start_scheduler.h"
#include "server/auth/revocation_watch.h"
#include "server/http/dashboard_server.h"

namespace kbench::server {

class AssembledServer {
 public:
  // Starts every part; once it returns the server serves, health tells
  // whether a device is ready, and stdout has "kbench-server listening on
  // HOST:PORT". An error's message is the whole reason. `flags` must
  // outlive the server.
  static absl::StatusOr<std::unique_ptr<AssembledServer>> Start(const ServerFlags& flags);

  // A server that was not drained (its start failed part way) stops its
  // scheduler first: the runs its devices claimed from a shared queue
  // write to the services' queue store, which goes before the scheduler.
  ~AssembledServer();

  AssembledServer(const AssembledServer&) = delete;
  AssembledServer& operator=(const AssembledServer&) = delete;

  // From now on new runs are refused with UNAVAILABLE "server is draining:
  // ..."; the first step of Drain, for a caller that says it is draining
  // only once it is so.
  void RefuseNewRuns();

  // New runs are refused with UNAVAILABLE and health turns NOT_SERVING;
  // running and waiting runs get --shutdown-grace seconds to end, then are
  // cancelled; then the servers, the scheduler, the workers and the
  // dashboard stop. Call once.
  void Drain();

 private:
  explicit AssembledServer(const ServerFlags& flags) : flags_(flags) {}

  const ServerFlags& flags_;
  ServingHealth health_;
  OpenedStores stores_;
  StartedScheduler started_;
  std::unique_ptr<FrontServices> services_;
  // After services_, so it stops before they go.
  std::unique_ptr<auth::RevocationWatch> revocations_;
  std::unique_ptr<http::DashboardServer> dashboard_;
  GrpcListeners listeners_;
};

}  // namespace kbench::server
