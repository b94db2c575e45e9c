// The checks every dashboard request passes before it is routed. cpp-httplib
// calls them (its pre-routing and Expect: 100-continue handlers) once it has
// read the request line and the headers, and before it reads a body, so a
// refused request costs its headers and nothing more:
//   405  a method other than GET or HEAD (the dashboard has no other);
//   413  a declared body: Content-Length above kMaxRequestBodyBytes, or any
//        Transfer-Encoding (http_limits.h);
//   403  a Host header that names neither an IP address, nor localhost, nor
//        one of the names the dashboard is told it has (GateOptions): a page
//        of another site that rebinds its name to this address (DNS
//        rebinding) gives its own name as Host;
//   403  without authentication, a client that is not on this machine
//        (client_check.h).
// A token is checked where it is needed, by the endpoints (api_routes.h)
// and /metrics; the page and its files need none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "httplib.h"

namespace kbench::server::http {

struct GateOptions {
  // Whether callers are authenticated by token; without, only loopback
  // clients are served.
  bool authentication = false;
  // Host names the Host header may give besides IP addresses and
  // "localhost", compared without case: the listen address's host and the
  // operator's (--http-host).
  std::vector<std::string> host_names;
};

struct Refusal {
  int http_status = 0;
  std::string message;
};

// Whether the Host header's value `host` ("name", "name:port",
// "[v6]:port", "1.2.3.4:port") names this dashboard.
bool HostAllowed(absl::string_view host, const std::vector<std::string>& names);

// The refusal of `request`, or nullopt when it may be routed.
std::optional<Refusal> CheckRequest(const httplib::Request& request, const GateOptions& options);

}  // namespace kbench::server::http
