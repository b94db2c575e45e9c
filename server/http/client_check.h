// Which HTTP clients the dashboard of a server without authentication
// serves: every such client would see every learner's runs, so this
// machine only: loopback addresses (127.0.0.0/8, ::1, and IPv4-mapped
// 127.x). With authentication each caller's token decides (api_routes.h).
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kbench::server::http {

// Whether `address` (an IPv4 or IPv6 address as text, as cpp-httplib's
// Request::remote_addr gives it) is a loopback address.
bool IsLoopbackAddress(absl::string_view address);

// OK when `remote_addr` is loopback; otherwise PERMISSION_DENIED, saying
// why.
absl::Status CheckClient(absl::string_view remote_addr);

}  // namespace kbench::server::http
