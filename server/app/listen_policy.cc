#include "server/app/listen_policy.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "absl/strings/str_cat.h"

namespace kbench::server {

bool IsLoopbackListenAddress(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

absl::Status CheckListenAddress(const std::string& flag, const std::string& address,
                                const ListenPolicy& policy) {
  if (IsLoopbackListenAddress(address)) return absl::OkStatus();
  if (!policy.authentication && !policy.insecure) {
    return absl::FailedPreconditionError(
        absl::StrCat(flag, " ", address,
                     ": a server without authentication serves this machine only (127.0.0.1, "
                     "localhost, [::1]), since anyone who reaches it could run on its devices and "
                     "read every run; add users (kbench-server admin add-user: authentication then "
                     "turns on), or give --insecure to serve the network without authentication"));
  }
  if (policy.authentication && !policy.tls && !policy.allow_plaintext_tokens) {
    return absl::FailedPreconditionError(absl::StrCat(
        flag, " ", address,
        ": with authentication every call carries a bearer token (and login hands out "
        "new ones), which in plain text anyone on the network path could read and use; "
        "give --tls-cert and --tls-key, or --allow-plaintext-tokens where the network "
        "itself is trusted (or encrypted, e.g. a VPN or a TLS-terminating proxy)"));
  }
  return absl::OkStatus();
}

}  // namespace kbench::server
