#include "server/front/cohort_quota_refresh.h"

#include <utility>

#include "server/common/log.h"

namespace kbench::server {

CohortQuotaRefresh::CohortQuotaRefresh(QuotaGate& gate, CohortQuotaRead read,
                                       std::chrono::milliseconds period)
    : gate_(gate), read_(std::move(read)), periodic_(period, [this] { Refresh(); }) {}

void CohortQuotaRefresh::Refresh() {
  const uint64_t version = gate_.OverridesVersion();
  absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> overrides = read_();
  if (overrides.ok()) {
    // A change made here during the read wins; the next read has it.
    gate_.ReplaceOverrides(*std::move(overrides), version);
    if (failing_) Log("quotas: the store's cohort quotas can be read again");
    failing_ = false;
  } else if (!failing_) {
    Log("quotas: cannot read the store's cohort quotas (", overrides.status().message(),
        "); keeping those read before");
    failing_ = true;
  }
}

}  // namespace kbench::server
