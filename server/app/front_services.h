// The front's gRPC services over one store and scheduler: KernelBench (runs,
// observed by the store recorder, the metrics, the live view and the
// quotas), RunHistory, Auth, Quotas and Assignments, with what they share: the quota
// gate, the metrics registry and the live runs.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "prometheus/registry.h"
#include "server/app/open_stores.h"
#include "server/app/server_flags.h"
#include "server/app/start_scheduler.h"
#include "server/auth/auth_service.h"
#include "server/front/assignment_service.h"
#include "server/front/cohort_quota_refresh.h"
#include "server/front/history_service.h"
#include "server/front/host_lease.h"
#include "server/front/queue_claimer.h"
#include "server/front/quota_gate.h"
#include "server/front/quota_service.h"
#include "server/front/service.h"
#include "server/front/shared_queue.h"
#include "server/live/live_runs.h"
#include "server/live/live_state.h"
#include "server/metrics/run_metrics.h"
#include "server/store/queue_store.h"
#include "server/store/store_recorder.h"

namespace kbench::server {

class FrontServices {
 public:
  // `stores` and `started` must outlive the services. An error (the store
  // cannot read the cohorts' quotas) has the whole reason as its message.
  static absl::StatusOr<std::unique_ptr<FrontServices>> Create(const ServerFlags& flags,
                                                               const OpenedStores& stores,
                                                               StartedScheduler& started);

  FrontServices(const FrontServices&) = delete;
  FrontServices& operator=(const FrontServices&) = delete;

  // Registers the five services; they must outlive the server built.
  void RegisterOn(grpc::ServerBuilder& builder);

  KernelBenchService& runs() { return service_; }
  // The assignments, for the dashboard's pages of them.
  AssignmentBook& assignments() { return assignment_book_; }
  prometheus::Registry& registry() { return registry_; }
  // The server as it is now, for the dashboard (a LiveProvider): any thread.
  LiveState Live() const;

  // Draining: this server's devices claim no more runs of the shared queue.
  void StopClaiming();
  // Runs this server admitted to the shared queue that have not ended (0
  // without --shared-queue).
  uint32_t SharedRunsInFlight() const;

 private:
  FrontServices(const ServerFlags& flags, const OpenedStores& stores, StartedScheduler& started,
                std::map<std::string, v1::QuotaOverrides> cohort_quotas,
                std::unique_ptr<store::QueueStore> queue_store);

  // --shared-queue: the store's queue, where this server's runs wait (null
  // without the flag).
  std::unique_ptr<store::QueueStore> queue_store_;
  std::unique_ptr<SharedQueue> shared_queue_;
  QuotaGate quotas_;
  // Other servers sharing the store change cohort quotas too, and may die.
  CohortQuotaRefresh quota_refresh_;
  HostLease host_lease_;
  store::StoreRecorder recorder_;
  prometheus::Registry registry_;
  metrics::RunMetrics metrics_;
  LiveRuns live_runs_;
  KernelBenchService service_;
  HistoryService history_;
  auth::AuthService auth_;
  QuotaService quota_service_;
  AssignmentBook assignment_book_;
  AssignmentService assignment_service_;
  // --shared-queue: this server's devices run the store's queue.
  std::unique_ptr<QueueClaimer> claimer_;
};

}  // namespace kbench::server
