#include "server/http/run_fields.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace kbench::server::http {

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

std::string DTypeNameOf(v1::DType dtype) {
  if (dtype == v1::DTYPE_UNSPECIFIED) dtype = v1::DTYPE_FP32;
  absl::string_view name = v1::DType_Name(dtype);
  absl::ConsumePrefix(&name, "DTYPE_");
  return absl::AsciiStrToLower(name);
}

}  // namespace kbench::server::http
