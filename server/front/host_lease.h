// HostLease: this server's lease on its host id in a shared store, and the
// sweep of hosts whose lease lapsed. Every quarter of the lease it renews
// its own (RunStore::Heartbeat) and ends the runs left in flight by hosts
// that have not renewed theirs for longer than the lease
// (RunStore::MarkLapsedHostsInterrupted): a server that died and does not
// come back loses only the runs it had, and those end within about 1.25
// leases instead of staying queued or running in everyone's history. A
// host's clock and the sweeping host's should agree to well within the
// lease. A round that fails is logged once until one succeeds again.
#pragma once

#include <chrono>

#include "server/common/periodic.h"
#include "server/store/run_store.h"

namespace kbench::server {

inline constexpr std::chrono::seconds kDefaultHostLease{60};

class HostLease {
 public:
  // Renews at once, then every lease / 4.
  HostLease(store::RunStore& store, std::chrono::milliseconds lease);

 private:
  void Renew();

  store::RunStore& store_;
  const std::chrono::milliseconds lease_;
  bool failing_ = false;  // Renew's only
  // The first renewal, made by the constructor before periodic_ starts.
  const bool renewed_at_start_;
  Periodic periodic_;  // last: calls Renew once the rest is ready
};

}  // namespace kbench::server
