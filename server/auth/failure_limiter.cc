#include "server/auth/failure_limiter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace kbench::server::auth {

FailureLimiter::FailureLimiter(std::string what, uint32_t burst, Clock::duration refill)
    : what_(std::move(what)), burst_(burst), refill_(refill) {}

std::string FailureLimiter::AddressOf(const std::string& peer) {
  const size_t port = peer.rfind(':');
  const size_t bracket = peer.rfind(']');
  if (port == std::string::npos || (bracket != std::string::npos && port < bracket)) return peer;
  return peer.substr(0, port);
}

double FailureLimiter::Owed(const Debt& debt, Clock::time_point now) const {
  const double refills = std::chrono::duration<double>(now - debt.at) / refill_;
  return std::max(0.0, debt.failures - std::max(0.0, refills));
}

absl::Status FailureLimiter::Check(const std::string& address, Clock::time_point now) {
  std::lock_guard lock(mu_);
  const auto found = debts_.find(address);
  if (found == debts_.end()) return absl::OkStatus();
  const double owed = Owed(found->second, now);
  if (owed + 1 <= burst_) return absl::OkStatus();
  const double wait_s =
      std::ceil((owed + 1 - burst_) * std::chrono::duration<double>(refill_).count());
  return absl::ResourceExhaustedError(
      absl::StrCat("too many ", what_, " from ", address, " (", burst_, " at once, then one each ",
                   std::chrono::duration<double>(refill_).count(), " s); retry in ", wait_s, " s"));
}

void FailureLimiter::Failed(const std::string& address, Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (debts_.size() >= kMaxTrackedAddresses && !debts_.contains(address)) {
    std::erase_if(debts_, [&](const auto& entry) { return Owed(entry.second, now) == 0; });
    if (debts_.size() >= kMaxTrackedAddresses) debts_.erase(debts_.begin());
  }
  Debt& debt = debts_[address];
  debt.failures = Owed(debt, now) + 1;
  debt.at = now;
}

}  // namespace kbench::server::auth
