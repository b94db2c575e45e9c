// The dashboard port's bounds on what one client may make the server hold
// (docs/SECURITY.md lists them with the others). The port shares its process
// with the gRPC service, so whatever a request can make it hold is taken
// from the runs.
//
// cpp-httplib 0.11 (Debian 12) adds its own, compiled into the library and
// not settable: a request line or a header line of at most 8 KiB (414 or
// 400 beyond), 5 requests on one kept-alive connection, and 5 s for a read
// or a write to make progress. It does not bound the number of header lines.
#pragma once

#include <cstddef>

namespace kbench::server::http {

// Every dashboard endpoint is a GET: a request that declares a body
// (Content-Length above this, or any Transfer-Encoding) is refused with
// 413 before a byte of the body is read, and cpp-httplib's own payload
// limit is set to it as well.
inline constexpr size_t kMaxRequestBodyBytes = 0;

// The threads that serve requests, one connection each at a time.
inline constexpr size_t kServingThreads = 8;

// Accepted connections waiting for a thread. Beyond them the server stops
// accepting: further connections wait in the kernel's listen backlog, not
// in the process (a descriptor and a queue entry each).
inline constexpr size_t kMaxWaitingConnections = 32;

}  // namespace kbench::server::http
