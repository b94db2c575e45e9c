#include "server/http/request_gate.h"

#include <arpa/inet.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "server/http/client_check.h"
#include "server/http/http_limits.h"

namespace kbench::server::http {

bool HostAllowed(absl::string_view host, const std::vector<std::string>& names) {
  // A bracketed IPv6 literal, with or without a port.
  if (absl::StartsWith(host, "[")) return host.find(']') != absl::string_view::npos;
  if (const size_t colon = host.rfind(':'); colon != absl::string_view::npos) {
    int port = 0;
    if (!absl::SimpleAtoi(host.substr(colon + 1), &port)) return false;
    host = host.substr(0, colon);
  }
  std::string name = absl::AsciiStrToLower(host);
  if (absl::EndsWith(name, ".")) name.pop_back();
  // An address is no name a page can rebind.
  in_addr v4;
  if (inet_pton(AF_INET, name.c_str(), &v4) == 1) return true;
  if (name == "localhost") return true;
  for (const std::string& allowed : names) {
    if (absl::EqualsIgnoreCase(name, allowed)) return true;
  }
  return false;
}

std::optional<Refusal> CheckRequest(const httplib::Request& request, const GateOptions& options) {
  if (request.method != "GET" && request.method != "HEAD") {
    return Refusal{
        405, absl::StrCat("method ", request.method, ": the dashboard serves GET and HEAD only")};
  }
  uint64_t length = 0;
  if (request.has_header("Transfer-Encoding") ||
      (request.has_header("Content-Length") &&
       (!absl::SimpleAtoi(request.get_header_value("Content-Length"), &length) ||
        length > kMaxRequestBodyBytes))) {
    return Refusal{413, absl::StrCat("the dashboard takes no request body (at most ",
                                     kMaxRequestBodyBytes, " bytes)")};
  }
  if (request.has_header("Host") &&
      !HostAllowed(request.get_header_value("Host"), options.host_names)) {
    return Refusal{403,
                   "the Host header names neither an address nor a name of this dashboard; "
                   "its operator can add the name (kbench-server --http-host NAME)"};
  }
  if (!options.authentication) {
    if (absl::Status allowed = CheckClient(request.remote_addr); !allowed.ok()) {
      return Refusal{403, std::string(allowed.message())};
    }
  }
  return std::nullopt;
}

}  // namespace kbench::server::http
