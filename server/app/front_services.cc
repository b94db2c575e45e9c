#include "server/app/front_services.h"

#include <chrono>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kbench::server {
namespace {

ServiceOptions RunServiceOptions(const ServerFlags& flags, const OpenedStores& stores,
                                 const StartedScheduler& started, QuotaGate& quotas,
                                 RunQueue* queue) {
  ServiceOptions options;
  options.limits = started.limits;
  options.timing_defaults = started.timing_defaults;
  options.enable_fault_injection = flags.workers.enable_fault_injection;
  options.authenticator = stores.authenticator.get();
  options.quotas = &quotas;
  options.queue = queue;
  return options;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FrontServices>> FrontServices::Create(const ServerFlags& flags,
                                                                     const OpenedStores& stores,
                                                                     StartedScheduler& started) {
  absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> cohort_quotas =
      stores.runs->CohortQuotas();
  if (!cohort_quotas.ok())
    return absl::Status(
        cohort_quotas.status().code(),
        absl::StrCat("the store ", flags.store, ": ", cohort_quotas.status().message()));
  std::unique_ptr<store::QueueStore> queue_store;
  if (flags.shared_queue) {
    // Every device of one server has the same backend: the first's.
    const auto& executors = started.scheduler->executors();
    absl::StatusOr<std::unique_ptr<store::QueueStore>> opened = store::QueueStore::Open(
        flags.store, flags.host_id,
        executors.empty() ? std::string() : executors.front()->Info().backend(),
        std::chrono::duration_cast<std::chrono::milliseconds>(kFairShareWindow));
    if (!opened.ok())
      return absl::Status(
          opened.status().code(),
          absl::StrCat("--shared-queue: the store ", flags.store, ": ", opened.status().message()));
    queue_store = *std::move(opened);
  }
  return std::unique_ptr<FrontServices>(
      new FrontServices(flags, stores, started, *std::move(cohort_quotas), std::move(queue_store)));
}

FrontServices::FrontServices(const ServerFlags& flags, const OpenedStores& stores,
                             StartedScheduler& started,
                             std::map<std::string, v1::QuotaOverrides> cohort_quotas,
                             std::unique_ptr<store::QueueStore> queue_store)
    : queue_store_(std::move(queue_store)),
      shared_queue_(queue_store_
                        ? std::make_unique<SharedQueue>(*queue_store_, started.limits.max_queue())
                        : nullptr),
      quotas_(
          flags.quotas.Resolve(),
          [&runs = *stores.runs](const std::string& user, int64_t since_unix_ms) {
            return runs.DeviceTimeOf(user, since_unix_ms);
          },
          std::move(cohort_quotas),
          [&runs = *stores.runs](const std::string& user, int64_t since_unix_ms) {
            return runs.ActivityElsewhereOf(user, since_unix_ms);
          }),
      quota_refresh_(quotas_, [&runs = *stores.runs] { return runs.CohortQuotas(); }),
      host_lease_(*stores.runs, std::chrono::milliseconds(int64_t(flags.host_lease_s * 1000))),
      recorder_(*stores.runs),
      metrics_(registry_),
      service_(*started.scheduler,
               RunServiceOptions(flags, stores, started, quotas_, shared_queue_.get()),
               {&recorder_, &metrics_, &live_runs_}),
      history_(*stores.runs, stores.authenticator.get(), stores.identities.get()),
      auth_(*stores.identities, stores.authenticator.get()),
      quota_service_(quotas_, *stores.runs, stores.authenticator.get()),
      assignment_book_(
          *stores.assignments, *stores.runs, stores.identities.get(),
          [this](const v1::RunRequest& request) { return service_.CheckRequest(request); }),
      assignment_service_(assignment_book_, stores.authenticator.get()),
      claimer_(queue_store_
                   ? std::make_unique<QueueClaimer>(*queue_store_, *started.scheduler,
                                                    [this](const v1::RunRequest& request) {
                                                      return service_.AdmitRequest(request);
                                                    })
                   : nullptr) {}

void FrontServices::StopClaiming() {
  if (claimer_) claimer_->Stop();
}

uint32_t FrontServices::SharedRunsInFlight() const {
  return shared_queue_ ? shared_queue_->followed() : 0;
}

void FrontServices::RegisterOn(grpc::ServerBuilder& builder) {
  builder.RegisterService(&service_);
  builder.RegisterService(&history_);
  builder.RegisterService(&auth_);
  builder.RegisterService(&quota_service_);
  builder.RegisterService(&assignment_service_);
}

LiveState FrontServices::Live() const {
  LiveState state;
  state.info = service_.Info();
  live_runs_.Fill(state);
  return state;
}

}  // namespace kbench::server
