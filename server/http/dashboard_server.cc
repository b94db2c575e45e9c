#include "server/http/dashboard_server.h"

#include <chrono>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "prometheus/text_serializer.h"
#include "server/http/api_params.h"
#include "server/http/api_routes.h"
#include "server/http/assets.h"
#include "server/http/client_check.h"

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
    return absl::InvalidArgumentError(absl::StrCat(
        "dashboard address \"", listen, "\" is not host:port (e.g. 127.0.0.1:8080)"));
  }
  absl::string_view host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return HostPort{std::string(host), port};
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
    auto tls = std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(),
                                                    options.tls_key.c_str());
    if (!tls->is_valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the dashboard cannot use the certificate ", options.tls_cert, " and key ",
          options.tls_key, " (unreadable, not PEM, or not a pair)"));
    }
    http = std::move(tls);
  }
  std::unique_ptr<DashboardServer> server(new DashboardServer(
      store, std::move(live), registry, options.authenticator, std::move(http)));
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
                                 std::unique_ptr<httplib::Server> server)
    : store_(store),
      live_(std::move(live)),
      registry_(registry),
      live_gauges_(registry),
      authenticator_(authenticator),
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
        // With authentication the API checks each caller's token.
        if (authenticator_ != nullptr) return httplib::Server::HandlerResponse::Unhandled;
        const absl::Status allowed = CheckClient(request.remote_addr);
        if (allowed.ok()) return httplib::Server::HandlerResponse::Unhandled;
        response.status = HttpStatusOf(allowed);
        response.set_content(ErrorJson(allowed).dump(), "application/json");
        return httplib::Server::HandlerResponse::Handled;
      });
  server_->set_post_routing_handler([](const httplib::Request&, httplib::Response& response) {
    response.set_header("X-Content-Type-Options", "nosniff");
    response.set_header("Content-Security-Policy",
                        "default-src 'self'; style-src 'self' 'unsafe-inline'");
  });
  for (const Asset& asset : EmbeddedAssets()) {
    const auto serve = [&asset](const httplib::Request&, httplib::Response& response) {
      response.set_header("Cache-Control", "no-cache");
      response.set_content(asset.body.data(), asset.body.size(),
                           std::string(asset.content_type));
    };
    server_->Get(std::string(asset.path), serve);
    if (asset.path == "/index.html") server_->Get("/", serve);
  }
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    live_gauges_.Update(live_());
    std::ostringstream text;
    prometheus::TextSerializer().Serialize(text, registry_.Collect());
    response.set_content(text.str(), "text/plain; version=0.0.4; charset=utf-8");
  });
  AddApiRoutes(*server_, store_, live_,
               [this](const httplib::Request& request) -> absl::StatusOr<auth::Principal> {
                 if (authenticator_ == nullptr) return auth::LocalPrincipal();
                 return authenticator_->AuthenticateHeader(
                     request.get_header_value("Authorization"));
               });
}

}  // namespace kbench::server::http
