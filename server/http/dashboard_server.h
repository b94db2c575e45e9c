// DashboardServer: the instructor's dashboard and the Prometheus metrics on
// one HTTP port of their own (cpp-httplib):
//   /                the page (assets embedded at build time, assets.h)
//   /api/...         its JSON and CSV endpoints (api_routes.h, docs/API.md)
//   /metrics         the registry in Prometheus' text format; the live
//                    gauges (metrics/live_gauges.h) are set from the live
//                    provider just before each scrape.
// With an authenticator (a server with users) the API and /metrics answer
// only a request with a valid token, the API each caller for their role, and
// the page asks for a token; without one it serves loopback clients only,
// others get 403 saying why (client_check.h). Every request passes the
// checks of request_gate.h (GET or HEAD, no body, a Host header of this
// dashboard) before it is routed, and the port's bounds are http_limits.h's.
// HTTPS (TLS 1.2 or later) with options.tls_cert and tls_key. Every reply
// forbids framing (CSP frame-ancestors 'none').
//
// Use from kbench-server's main:
//   prometheus::Registry registry;
//   metrics::RunMetrics run_metrics(registry);  // an observer of runs
//   LiveRuns live_runs;                         // an observer of runs
//   ... add both to the service's observers ...
//   LiveProvider live = [&] {
//     LiveState state;
//     state.info = <the service's ServerInfo: devices, running, queued>;
//     live_runs.Fill(state);
//     return state;
//   };
//   KBENCH_ASSIGN_OR_RETURN(auto dashboard, http::DashboardServer::Start(
//       *store, live, registry, {.listen = "127.0.0.1:8080"}));
//   ... serve gRPC; on shutdown: dashboard->Stop() (or destroy it) before
//   the store, the registry and whatever the provider reads.
//
// Requests are served on cpp-httplib's own threads, several at once; the
// store, the provider and the registry must outlive the server.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "httplib.h"
#include "prometheus/registry.h"
#include "server/auth/token_authenticator.h"
#include "server/front/assignment_book.h"
#include "server/http/request_gate.h"
#include "server/live/live_state.h"
#include "server/metrics/live_gauges.h"
#include "server/store/run_store.h"

namespace kbench::server::http {

struct DashboardOptions {
  // "host:port" to listen on: "127.0.0.1:8080", "0.0.0.0:8080",
  // "[::1]:8080". Port 0 picks a free port (see DashboardServer::port).
  std::string listen = "127.0.0.1:8080";
  // The callers' identities: the API answers each for their role
  // (api_routes.h), from the request's `Authorization: Bearer TOKEN`
  // header. Null: a server without authentication, which serves this
  // machine's clients only (client_check.h). Must outlive the server.
  const auth::TokenAuthenticator* authenticator = nullptr;
  // PEM certificate chain and key: serve HTTPS; empty: plain HTTP.
  std::string tls_cert;
  std::string tls_key;
  // The names clients reach the dashboard by, for the Host check
  // (request_gate.h), besides IP addresses, localhost and the host of
  // `listen`: e.g. the name of an Ingress in front of it.
  std::vector<std::string> host_names;
  // The assignments behind /api/assignments/... (assignment_routes.h);
  // null: those endpoints are not served. Must outlive the server.
  AssignmentBook* assignments = nullptr;
};

class DashboardServer {
 public:
  // Binds options.listen and starts serving on a thread of its own.
  // INVALID_ARGUMENT for a malformed address, UNAVAILABLE when the address
  // cannot be bound (in use, not this host's).
  static absl::StatusOr<std::unique_ptr<DashboardServer>> Start(store::RunStore& store,
                                                                LiveProvider live,
                                                                prometheus::Registry& registry,
                                                                DashboardOptions options);

  // Stop()s.
  ~DashboardServer();
  DashboardServer(const DashboardServer&) = delete;
  DashboardServer& operator=(const DashboardServer&) = delete;

  // The port it listens on (the one picked, for port 0).
  int port() const { return port_; }

  // Stops listening and joins the serving thread, after the requests in
  // flight end. Safe to call more than once.
  void Stop();

 private:
  DashboardServer(store::RunStore& store, LiveProvider live, prometheus::Registry& registry,
                  const auth::TokenAuthenticator* authenticator, AssignmentBook* assignments,
                  GateOptions gate, std::unique_ptr<httplib::Server> server);

  void AddRoutes();

  store::RunStore& store_;
  const LiveProvider live_;
  prometheus::Registry& registry_;
  metrics::LiveGauges live_gauges_;
  const auth::TokenAuthenticator* const authenticator_;
  AssignmentBook* const assignments_;
  const GateOptions gate_;
  int port_ = 0;
  std::unique_ptr<httplib::Server> server_;  // an httplib::SSLServer for TLS
  std::atomic<bool> listening_ended_ = false;
  std::thread thread_;
};

}  // namespace kbench::server::http
