// The query parameters of one /api/ request, checked against what its
// endpoint takes. A bad parameter is INVALID_ARGUMENT whose message names it
// and whose payload kParameterPayload holds its name, so that the reply's
// JSON error can name it too (see ErrorJson).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace kbench::server::http {

// The status payload that names the bad parameter.
inline constexpr absl::string_view kParameterPayload = "kbench.dashboard/parameter";

// INVALID_ARGUMENT "parameter <name>: <why>" naming `name` in its payload.
absl::Status BadParameter(absl::string_view name, absl::string_view why);

// {"error": message} and, for a bad parameter, "parameter": its name.
nlohmann::json ErrorJson(const absl::Status& status);

// The HTTP status of an error: 400 INVALID_ARGUMENT, 401 UNAUTHENTICATED,
// 403 PERMISSION_DENIED,
// 404 NOT_FOUND, 503 UNAVAILABLE, else 500.
int HttpStatusOf(const absl::Status& status);

class ApiParams {
 public:
  explicit ApiParams(const httplib::Request& request) : request_(request) {}

  // Error for any parameter not in `known`, or given twice.
  absl::Status Only(std::initializer_list<absl::string_view> known) const;
  // The parameter's value; error when missing or empty.
  absl::StatusOr<std::string> Required(const std::string& name) const;
  // The parameter's value, or "" when absent.
  std::string Optional(const std::string& name) const;
  // A whole number in [min, max]; nullopt when absent.
  absl::StatusOr<std::optional<int64_t>> Integer(const std::string& name, int64_t min,
                                                 int64_t max) const;
  // "json" (the default) or "csv": whether the reply is CSV.
  absl::StatusOr<bool> WantsCsv() const;

 private:
  const httplib::Request& request_;
};

}  // namespace kbench::server::http
