// Where a server may listen. Without authentication: on loopback only,
// unless the operator says --insecure, since every caller may run on its
// devices and read every run. With authentication: on loopback, or with
// TLS (--tls-cert), unless the operator says --allow-plaintext-tokens,
// since every call carries its bearer token and Login hands out new ones:
// in plain text anyone on the network path could read them and act as
// their users.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace kbench::server {

// Whether HOST of a HOST:PORT address is this machine only: 127.0.0.0/8,
// ::1, or exactly "localhost" ("127.0.0.1.example.org" is not).
bool IsLoopbackListenAddress(const std::string& address);

struct ListenPolicy {
  bool authentication = false;
  bool insecure = false;                // --insecure
  bool tls = false;                     // --tls-cert
  bool allow_plaintext_tokens = false;  // --allow-plaintext-tokens
};

// OK when `address` (HOST:PORT, given as `flag`) may be served under
// `policy`; else FAILED_PRECONDITION saying why and what would allow it.
absl::Status CheckListenAddress(const std::string& flag, const std::string& address,
                                const ListenPolicy& policy);

}  // namespace kbench::server
