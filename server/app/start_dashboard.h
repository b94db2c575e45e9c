// The dashboard, its JSON API and the Prometheus metrics on --http
// (server/http/dashboard_server.h), over the store and the live runs.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/app/front_services.h"
#include "server/app/open_stores.h"
#include "server/app/server_flags.h"
#include "server/http/dashboard_server.h"

namespace kbench::server {

// Null for --http off, and (saying so in the log) when the default address
// cannot be bound; an error, its message the whole reason, when any other
// address cannot be. Logs where it serves. `stores` and `services` must
// outlive the dashboard.
absl::StatusOr<std::unique_ptr<http::DashboardServer>> StartDashboard(const ServerFlags& flags,
                                                                      const OpenedStores& stores,
                                                                      FrontServices& services);

}  // namespace kbench::server
