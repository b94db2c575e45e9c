#include "server/http/dashboard_server.h"

#include <chrono>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "openssl/ssl.h"
#include "prometheus/text_serializer.h"
#include "server/http/api_params.h"
#include "server/http/api_routes.h"
#include "server/http/assets.h"
#include "server/http/assignment_routes.h"
#include "server/http/bounded_task_queue.h"
#include "server/http/http_limits.h"

namespace kbench::server::http {
namespace {

struct HostPort {
  std::string host;
  int port = 0;
};

absl::StatusOr<HostPort> ParseListen(absl::string_view listen) {
  const size_t colon = listen.rfind(':');
  int port = 0;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("dashboard address \"", listen, "\" is not host:port (e.g. 127.0.0.1:8080)"));
  }
  absl::string_view host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return HostPort{std::string(host), port};
}

void ReplyRefusal(const Refusal& refusal, httplib::Response& response) {
  response.status = refusal.http_status;
  response.set_content(nlohmann::json{{"error", refusal.message}}.dump(), "application/json");
}

}  // namespace

absl::StatusOr<std::unique_ptr<DashboardServer>> DashboardServer::Start(
    store::RunStore& store, LiveProvider live, prometheus::Registry& registry,
    DashboardOptions options) {
  absl::StatusOr<HostPort> address = ParseListen(options.listen);
  if (!address.ok()) return address.status();
  std::unique_ptr<httplib::Server> http;
  if (options.tls_cert.empty()) {
    http = std::make_unique<httplib::Server>();
  } else {
    auto tls =
        std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(), options.tls_key.c_str());
    if (!tls->is_valid()) {
      return absl::InvalidArgumentError(absl::StrCat("the dashboard cannot use the certificate ",
                                                     options.tls_cert, " and key ", options.tls_key,
                                                     " (unreadable, not PEM, or not a pair)"));
    }
    // cpp-httplib 0.11 accepts TLS 1.1.
    SSL_CTX_set_min_proto_version(tls->ssl_context(), TLS1_2_VERSION);
    http = std::move(tls);
  }
  http->new_task_queue = [] {
    return new BoundedTaskQueue(kServingThreads, kMaxWaitingConnections);
  };
  http->set_payload_max_length(kMaxRequestBodyBytes);
  GateOptions gate{.authentication = options.authenticator != nullptr,
                   .host_names = std::move(options.host_names)};
  gate.host_names.push_back(address->host);
  std::unique_ptr<DashboardServer> server(
      new DashboardServer(store, std::move(live), registry, options.authenticator,
                          options.assignments, std::move(gate), std::move(http)));
  if (address->port == 0) {
    server->port_ = server->server_->bind_to_any_port(address->host);
  } else if (server->server_->bind_to_port(address->host, address->port)) {
    server->port_ = address->port;
  } else {
    server->port_ = -1;
  }
  if (server->port_ < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.listen, " for the dashboard"));
  }
  server->thread_ = std::thread([raw = server.get()] {
    raw->server_->listen_after_bind();
    raw->listening_ended_ = true;
  });
  // cpp-httplib's stop() does nothing until the server runs: wait for it,
  // so that Stop() right after Start() cannot miss it.
  while (!server->server_->is_running() && !server->listening_ended_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return server;
}

DashboardServer::DashboardServer(store::RunStore& store, LiveProvider live,
                                 prometheus::Registry& registry,
                                 const auth::TokenAuthenticator* authenticator,
                                 AssignmentBook* assignments, GateOptions gate,
                                 std::unique_ptr<httplib::Server> server)
    : store_(store),
      live_(std::move(live)),
      registry_(registry),
      live_gauges_(registry),
      authenticator_(authenticator),
      assignments_(assignments),
      gate_(std::move(gate)),
      server_(std::move(server)) {
  AddRoutes();
}

DashboardServer::~DashboardServer() { Stop(); }

void DashboardServer::Stop() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

void DashboardServer::AddRoutes() {
  server_->set_pre_routing_handler(
      [this](const httplib::Request& request, httplib::Response& response) {
        const std::optional<Refusal> refusal = CheckRequest(request, gate_);
        if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
        ReplyRefusal(*refusal, response);
        return httplib::Server::HandlerResponse::Handled;
      });
  // A client that waits for 100 Continue before it sends a body learns the
  // refusal instead.
  server_->set_expect_100_continue_handler(
      [this](const httplib::Request& request, httplib::Response& response) {
        const std::optional<Refusal> refusal = CheckRequest(request, gate_);
        if (!refusal) return 100;
        ReplyRefusal(*refusal, response);
        return refusal->http_status;
      });
  server_->set_post_routing_handler([](const httplib::Request&, httplib::Response& response) {
    response.set_header("X-Content-Type-Options", "nosniff");
    response.set_header("X-Frame-Options", "DENY");
    response.set_header("Content-Security-Policy",
                        "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                        "frame-ancestors 'none'");
  });
  for (const Asset& asset : EmbeddedAssets()) {
    const auto serve = [&asset](const httplib::Request&, httplib::Response& response) {
      response.set_header("Cache-Control", "no-cache");
      response.set_content(asset.body.data(), asset.body.size(), std::string(asset.content_type));
    };
    server_->Get(std::string(asset.path), serve);
    if (asset.path == "/index.html") server_->Get("/", serve);
  }
  const CallerOf caller =
      [this](const httplib::Request& request) -> absl::StatusOr<identity::Principal> {
    if (authenticator_ == nullptr) return identity::LocalPrincipal();
    return authenticator_->AuthenticateHeader(request.get_header_value("Authorization"));
  };
  server_->Get("/metrics",
               [this, caller](const httplib::Request& request, httplib::Response& response) {
                 if (absl::StatusOr<identity::Principal> who = caller(request); !who.ok()) {
                   response.status = HttpStatusOf(who.status());
                   response.set_content(ErrorJson(who.status()).dump(), "application/json");
                   return;
                 }
                 live_gauges_.Update(live_());
                 std::ostringstream text;
                 prometheus::TextSerializer().Serialize(text, registry_.Collect());
                 response.set_content(text.str(), "text/plain; version=0.0.4; charset=utf-8");
               });
  if (assignments_ != nullptr) AddAssignmentRoutes(*server_, *assignments_, caller);
  AddApiRoutes(*server_, store_, live_, caller);
}

}  // namespace kbench::server::http
