// The server as an attacker on the course network meets it, in-process: the
// KernelBench service on the CPU backend with authentication, the learner
// quotas, the results store (SQLite, through StoreRecorder), RunHistory,
// Quotas and Auth on one loopback gRPC port, and the dashboard's API on a
// loopback HTTP port over the same store. The identities are role_stores.h's
// (learners ada, bob of fall24 and cy of spring25, grace the instructor of
// fall24, root the admin), signed in with their real tokens.
#pragma once

#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "httplib.h"
#include "kbench/v1/auth.grpc.pb.h"
#include "kbench/v1/history.grpc.pb.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "kbench/v1/quota.grpc.pb.h"
#include "prometheus/registry.h"
#include "server/auth/auth_service.h"
#include "server/auth/token_authenticator.h"
#include "server/front/history_service.h"
#include "server/front/quota_gate.h"
#include "server/front/quota_limits.h"
#include "server/front/quota_service.h"
#include "server/front/scheduler.h"
#include "server/front/service.h"
#include "server/http/dashboard_server.h"
#include "server/store/store_recorder.h"
#include "tests/role_stores.h"
#include "tests/temp_dir.h"

namespace kbench::testing {

class SecurityServer {
 public:
  // `quotas`: every learner's (the server's defaults when left out).
  explicit SecurityServer(const v1::QuotaLimits& quotas = server::DefaultQuotas());
  ~SecurityServer();

  // Check after construction: the stores, the gRPC server and the
  // dashboard all started.
  bool ok() const { return ok_; }
  const SeededTokens& tokens() const { return stores_.tokens; }
  server::store::RunStore& runs() { return *stores_.runs; }
  // The store's database, to write a row as no server of today would.
  const std::string& store_path() const { return store_path_; }

  std::shared_ptr<grpc::Channel> Channel() const;
  // A context whose call carries `token`, with a 30 s deadline.
  static std::unique_ptr<grpc::ClientContext> As(const std::string& token);

  // A Run stream of `request` as `token`, read to its end: its status.
  grpc::Status Run(const std::string& token, const v1::RunRequest& request) const;
  grpc::Status RunVectorAdd(const std::string& token, const v1::VectorAddRequest& request) const;

  // Every run `token` may list, through ListRuns (pages followed).
  grpc::Status ListAll(const std::string& token, std::vector<v1::RunRecord>& runs) const;

  // The dashboard's reply to GET `path` as `token`.
  httplib::Result Get(const std::string& path, const std::string& token) const;

  // Waits until the store holds `count` runs (StoreRecorder writes on its
  // own thread); false if it did not within 10 s.
  bool WaitForStoredRuns(size_t count);

 private:
  TempDir dir_;
  std::string store_path_;
  SeededStores stores_;
  std::unique_ptr<server::auth::TokenAuthenticator> authenticator_;
  std::unique_ptr<server::QuotaGate> quotas_;
  std::unique_ptr<server::store::StoreRecorder> recorder_;
  std::unique_ptr<server::Scheduler> scheduler_;
  std::unique_ptr<server::KernelBenchService> service_;
  std::unique_ptr<server::HistoryService> history_;
  std::unique_ptr<server::QuotaService> quota_service_;
  std::unique_ptr<server::auth::AuthService> auth_service_;
  std::unique_ptr<grpc::Server> grpc_server_;
  int port_ = 0;
  prometheus::Registry registry_;
  std::unique_ptr<server::http::DashboardServer> dashboard_;
  bool ok_ = false;
};

// A small vector add of the CPU backend: one variant, a 50 ms budget.
v1::RunRequest SmallRun();

}  // namespace kbench::testing
