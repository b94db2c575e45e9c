#include "server/front/host_lease.h"

#include "absl/status/status.h"
#include "server/common/log.h"

namespace kbench::server {
namespace {

int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

HostLease::HostLease(store::RunStore& store, std::chrono::milliseconds lease)
    : store_(store),
      lease_(lease),
      renewed_at_start_((Renew(), true)),
      periodic_(lease / 4, [this] { Renew(); }) {}

void HostLease::Renew() {
  const int64_t now = NowUnixMs();
  absl::Status status = store_.Heartbeat(now);
  if (status.ok()) {
    absl::StatusOr<int64_t> marked = store_.MarkLapsedHostsInterrupted(now, lease_.count());
    if (marked.ok() && *marked > 0)
      Log("store: ", *marked, " runs of hosts whose lease lapsed (", lease_.count() / 1000,
          " s) are now interrupted");
    status = marked.status();
  }
  if (status.ok() && failing_) Log("store: the host's lease is renewed again");
  if (!status.ok() && !failing_)
    Log("store: cannot renew the host's lease (", status.message(), "); trying again");
  failing_ = !status.ok();
}

}  // namespace kbench::server
