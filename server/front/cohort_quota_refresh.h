// CohortQuotaRefresh: keeps a QuotaGate's cohort overrides as the store has
// them. Servers that share a store (PostgreSQL) each hold their quotas in
// memory; a cohort's overrides set through one of them (SetCohortQuotas)
// reach the store at once and this server's gate within
// kCohortQuotaRefreshPeriod. A read that fails keeps the overrides the gate
// has and is logged once until a read succeeds again.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "kbench/v1/quota.pb.h"
#include "server/common/periodic.h"
#include "server/front/quota_gate.h"

namespace kbench::server {

inline constexpr std::chrono::seconds kCohortQuotaRefreshPeriod{5};

// Every cohort's overrides, as RunStore::CohortQuotas reads them.
using CohortQuotaRead = std::function<absl::StatusOr<std::map<std::string, v1::QuotaOverrides>>()>;

class CohortQuotaRefresh {
 public:
  // Reads with `read` every `period` and replaces the gate's overrides.
  CohortQuotaRefresh(QuotaGate& gate, CohortQuotaRead read,
                     std::chrono::milliseconds period = kCohortQuotaRefreshPeriod);

 private:
  void Refresh();

  QuotaGate& gate_;
  const CohortQuotaRead read_;
  bool failing_ = false;  // the refreshing thread's only
  Periodic periodic_;     // last: calls Refresh once the rest is ready
};

}  // namespace kbench::server
