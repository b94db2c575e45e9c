#include "server/app/start_dashboard.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/common/log.h"

namespace kbench::server {

absl::StatusOr<std::unique_ptr<http::DashboardServer>> StartDashboard(const ServerFlags& flags,
                                                                      const OpenedStores& stores,
                                                                      FrontServices& services) {
  if (flags.http == "off") return nullptr;
  absl::StatusOr<std::unique_ptr<http::DashboardServer>> started = http::DashboardServer::Start(
      *stores.runs, [&services] { return services.Live(); }, services.registry(),
      {.listen = flags.http,
       .authenticator = stores.authenticator.get(),
       .tls_cert = flags.tls_cert,
       .tls_key = flags.tls_key,
       .host_names = flags.http_hosts,
       .assignments = &services.assignments()});
  if (started.ok()) {
    Log("dashboard and metrics on ", flags.tls_cert.empty() ? "http" : "https", "://",
        flags.http.substr(0, flags.http.rfind(':')), ":", (*started)->port(), "/");
    return started;
  }
  if (flags.http == kDefaultHttp) {
    Log("no dashboard: ", started.status().message(), " (give --http HOST:PORT)");
    return nullptr;
  }
  return absl::Status(started.status().code(),
                      absl::StrCat("--http ", flags.http, ": ", started.status().message()));
}

}  // namespace kbench::server
