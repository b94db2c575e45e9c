#include "server/http/api_params.h"

#include <algorithm>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/common/echo.h"

namespace kbench::server::http {

absl::Status BadParameter(absl::string_view name, absl::string_view why) {
  absl::Status status = absl::InvalidArgumentError(absl::StrCat("parameter ", name, ": ", why));
  status.SetPayload(kParameterPayload, absl::Cord(name));
  return status;
}

nlohmann::json ErrorJson(const absl::Status& status) {
  nlohmann::json error = {{"error", std::string(status.message())}};
  if (auto parameter = status.GetPayload(kParameterPayload)) {
    error["parameter"] = std::string(*parameter);
  }
  return error;
}

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

absl::Status ApiParams::Only(std::initializer_list<absl::string_view> known) const {
  for (const auto& [name, value] : request_.params) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return BadParameter(name,
                          absl::StrCat("unknown; this endpoint takes ",
                                       known.size() == 0 ? "none" : absl::StrJoin(known, ", ")));
    }
    if (request_.get_param_value_count(name) > 1) return BadParameter(name, "given twice");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ApiParams::Required(const std::string& name) const {
  std::string value = Optional(name);
  if (value.empty()) return BadParameter(name, "required");
  return value;
}

std::string ApiParams::Optional(const std::string& name) const {
  return request_.get_param_value(name);
}

absl::StatusOr<std::optional<int64_t>> ApiParams::Integer(const std::string& name, int64_t min,
                                                          int64_t max) const {
  if (!request_.has_param(name)) return std::nullopt;
  const std::string text = Optional(name);
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < min || value > max) {
    return BadParameter(name,
                        absl::StrCat(Echo(text), " is not a whole number from ", min, " to ", max));
  }
  return value;
}

absl::StatusOr<bool> ApiParams::WantsCsv() const {
  const std::string format = Optional("format");
  if (format.empty() || format == "json") return false;
  if (format == "csv") return true;
  return BadParameter("format", absl::StrCat(Echo(format), " is neither json nor csv"));
}

}  // namespace kbench::server::http
