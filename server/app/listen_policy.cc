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
                                bool authentication, bool insecure) {
  if (authentication || insecure || IsLoopbackListenAddress(address)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      flag, " ", address,
      ": a server without authentication serves this machine only (127.0.0.1, "
      "localhost, [::1]), since anyone who reaches it could run on its devices and "
      "read every run; add users (kbench-server admin add-user: authentication then "
      "turns on), or give --insecure to serve the network without authentication"));
}

}  // namespace kbench::server
