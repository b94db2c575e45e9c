#include "server/http/client_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string>

#include "absl/strings/str_cat.h"

namespace kbench::server::http {

bool IsLoopbackAddress(absl::string_view address) {
  const std::string text(address);
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

absl::Status CheckClient(absl::string_view remote_addr) {
  if (IsLoopbackAddress(remote_addr)) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("the dashboard serves this machine only (the client is ", remote_addr,
                   "): without authentication it would show every learner's runs to anyone; "
                   "the server's operator can add users (kbench-server admin) to turn it on"));
}

}  // namespace kbench::server::http
