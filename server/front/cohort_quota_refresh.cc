#include "server/front/cohort_quota_refresh.h"

#include <utility>

#include "server/common/log.h"

namespace kbench::server {

CohortQuotaRefresh::CohortQuotaRefresh(QuotaGate& gate, CohortQuotaRead read,
                                       std::chrono::milliseconds period)
    : gate_(gate), read_(std::move(read)), period_(period), thread_([this] { Loop(); }) {}

CohortQuotaRefresh::~CohortQuotaRefresh() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

void CohortQuotaRefresh::Loop() {
  bool failing = false;
  std::unique_lock lock(mu_);
  while (!stop_cv_.wait_for(lock, period_, [&] { return stopping_; })) {
    lock.unlock();
    const uint64_t version = gate_.OverridesVersion();
    absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> overrides = read_();
    if (overrides.ok()) {
      // A change made here during the read wins; the next read has it.
      gate_.ReplaceOverrides(*std::move(overrides), version);
      if (failing) Log("quotas: the store's cohort quotas can be read again");
      failing = false;
    } else if (!failing) {
      Log("quotas: cannot read the store's cohort quotas (", overrides.status().message(),
          "); keeping those read before");
      failing = true;
    }
    lock.lock();
  }
}

}  // namespace kbench::server
