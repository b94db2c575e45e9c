// The Quotas service (kbench/v1/quota.proto): a learner's own quotas and
// usage, and a cohort's quotas, read and set by its instructor or an admin.
// Store work (the usage's device time, writing a cohort's overrides) runs
// on a StoreThread of its own, never on a gRPC thread. A cohort's
// overrides take effect at once on this server (QuotaGate::SetOverrides);
// other servers sharing the store read them when they start.
#pragma once

#include "kbench/v1/quota.grpc.pb.h"
#include "server/auth/authenticator.h"
#include "server/front/quota_gate.h"
#include "server/store/run_store.h"
#include "server/store/store_thread.h"

namespace kbench::server {

class QuotaService final : public v1::Quotas::CallbackService {
 public:
  // The gate, store and authenticator must outlive the service; a null
  // authenticator: every caller is identity::LocalPrincipal().
  QuotaService(QuotaGate& gate, store::RunStore& store, const auth::Authenticator* authenticator);

  grpc::ServerUnaryReactor* GetQuotas(grpc::CallbackServerContext* context,
                                      const v1::GetQuotasRequest* request,
                                      v1::QuotaReport* response) override;
  grpc::ServerUnaryReactor* SetCohortQuotas(grpc::CallbackServerContext* context,
                                            const v1::SetCohortQuotasRequest* request,
                                            v1::QuotaReport* response) override;

 private:
  absl::StatusOr<identity::Principal> Caller(const grpc::CallbackServerContext& context) const;
  // The cohort's quotas and overrides.
  v1::QuotaReport CohortReport(const std::string& cohort) const;

  QuotaGate& gate_;
  store::RunStore& store_;
  const auth::Authenticator* authenticator_;
  store::StoreThread thread_;  // last: destroyed first, finishing queued work
};

}  // namespace kbench::server
