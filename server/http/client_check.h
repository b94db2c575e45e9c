// Which HTTP clients the dashboard serves. Until identities exist (issue 8)
// every client of the dashboard sees every learner's runs, so by default it
// serves this machine only: loopback addresses (127.0.0.0/8, ::1, and
// IPv4-mapped 127.x).
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kbench::server::http {

// Whether `address` (an IPv4 or IPv6 address as text, as cpp-httplib's
// Request::remote_addr gives it) is a loopback address.
bool IsLoopbackAddress(absl::string_view address);

// OK when the dashboard serves a client at `remote_addr`: always with
// `allow_remote`, else loopback clients only. Otherwise PERMISSION_DENIED,
// saying why.
absl::Status CheckClient(absl::string_view remote_addr, bool allow_remote);

}  // namespace kbench::server::http
