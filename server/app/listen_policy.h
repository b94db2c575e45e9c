// Where a server may listen: on loopback only, unless its callers
// authenticate (--auth) or the operator says --insecure. A server without
// authentication lets every caller run on its devices and read every run,
// so it stays on this machine by default.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace kbench::server {

// Whether HOST of a HOST:PORT address is this machine only: 127.x,
// localhost, [::1].
bool IsLoopbackListenAddress(const std::string& address);

// OK when `address` (HOST:PORT, given as `flag`) may be served; else
// FAILED_PRECONDITION saying why and what would allow it.
absl::Status CheckListenAddress(const std::string& flag, const std::string& address,
                                bool authentication, bool insecure);

}  // namespace kbench::server
