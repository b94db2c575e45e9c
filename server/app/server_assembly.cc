#include "server/app/server_assembly.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/common/status_macros.h"
#include "server/app/start_dashboard.h"
#include "server/common/log.h"
#include "server/common/version.h"

namespace kbench::server {

absl::StatusOr<std::unique_ptr<AssembledServer>> AssembledServer::Start(const ServerFlags& flags) {
  std::unique_ptr<AssembledServer> server(new AssembledServer(flags));
  KBENCH_ASSIGN_OR_RETURN(server->stores_, OpenStores(flags));
  ServingHealth& health = server->health_;
  KBENCH_ASSIGN_OR_RETURN(server->started_, StartScheduler(flags, [&health](bool serving) {
                            Log("health: ", serving ? "SERVING" : "NOT_SERVING (no device ready)");
                            health.Set(serving);
                          }));
  KBENCH_ASSIGN_OR_RETURN(server->services_,
                          FrontServices::Create(flags, server->stores_, server->started_));
  if (auth::TokenAuthenticator* authenticator = server->stores_.authenticator.get()) {
    KernelBenchService& runs = server->services_->runs();
    server->revocations_ = std::make_unique<auth::RevocationWatch>(
        *server->stores_.identities, [authenticator, &runs](const std::string& user) {
          authenticator->Forget(user);
          runs.CancelRunsOf(user,
                            absl::UnauthenticatedError(absl::StrCat(
                                "the token of ", user, " was revoked: their runs are cancelled")));
        });
  }
  KBENCH_ASSIGN_OR_RETURN(server->dashboard_,
                          StartDashboard(flags, server->stores_, *server->services_));
  KBENCH_ASSIGN_OR_RETURN(server->listeners_,
                          StartGrpcListeners(flags, *server->services_, health));
  health.Set(server->started_.scheduler->AnyReady());
  const std::string host = flags.listen.substr(0, flags.listen.rfind(':'));
  std::printf("kbench-server listening on %s:%d\n", host.c_str(), server->listeners_.port);
  std::fflush(stdout);
  Log("kbench-server ", kVersion, " serving on ", host, ":", server->listeners_.port,
      flags.tls_cert.empty() ? " (plain text)" : " (TLS)");
  return server;
}

AssembledServer::~AssembledServer() {
  if (services_) services_->StopClaiming();
  if (started_.scheduler) started_.scheduler->Stop();
}

void AssembledServer::RefuseNewRuns() { services_->runs().Drain(); }

void AssembledServer::Drain() {
  Scheduler& scheduler = *started_.scheduler;
  grpc::Server& server = *listeners_.server;
  // The port stays open through the grace period: new runs get UNAVAILABLE
  // "server is draining: ..." rather than a refused connection.
  RefuseNewRuns();
  services_->StopClaiming();
  scheduler.Drain();
  server.GetHealthCheckService()->Shutdown();
  if (listeners_.health_server) listeners_.health_server->GetHealthCheckService()->Shutdown();
  const auto grace_end = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(int64_t(flags_.shutdown_grace_s * 1000));
  while (
      (scheduler.running() > 0 || scheduler.queued() > 0 || services_->SharedRunsInFlight() > 0) &&
      std::chrono::steady_clock::now() < grace_end)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  services_->runs().CancelRuns(absl::CancelledError(
      absl::StrCat("the server shut down before the run ended (--shutdown-grace ",
                   flags_.shutdown_grace_s, " s)")));
  // What remains are the cancelled runs' last writes.
  server.Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (listeners_.health_server)
    listeners_.health_server->Shutdown(std::chrono::system_clock::now());
  scheduler.Stop();
  for (WorkerExecutor* supervisor : started_.supervisors) supervisor->Stop();
  if (dashboard_) dashboard_->Stop();
  started_.scheduler.reset();
}

}  // namespace kbench::server
