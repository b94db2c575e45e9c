#include "server/store/learner.h"

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace kbench::server::store {

std::string LearnerOf(const std::string& user, const std::string& peer) {
  if (!user.empty()) return user;
  absl::string_view host = peer;
  if (!absl::ConsumePrefix(&host, "ipv4:") && !absl::ConsumePrefix(&host, "ipv6:")) {
    return peer;
  }
  const size_t colon = host.rfind(':');
  if (colon != absl::string_view::npos && !absl::EndsWith(host, "]")) {
    host = host.substr(0, colon);
  }
  return std::string(host);
}

}  // namespace kbench::server::store
