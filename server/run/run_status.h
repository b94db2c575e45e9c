// A run's final status, one rule for every observer that records it (the
// results store, the metrics), and the status names that the dashboard's API
// and the metrics' labels use: the RunStatus enum's names without their
// RUN_STATUS_ prefix, in lower case ("ok", "failed_verification", ...).
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kbench/v1/history.pb.h"

namespace kbench::server {

// How a run that OnEnded reports ended: `ended` is OnEnded's status and
// `all_verified` the Summary's all_verified if the Summary arrived.
//   OK                   the summary arrived and every variant verified,
//   FAILED_VERIFICATION  the summary arrived and some variant did not,
//   CANCELLED            the run ended CANCELLED or DEADLINE_EXCEEDED,
//   ERROR                otherwise.
inline v1::RunStatus FinalStatus(const absl::Status& ended, std::optional<bool> all_verified) {
  if (ended.ok() && all_verified) {
    return *all_verified ? v1::RUN_STATUS_OK : v1::RUN_STATUS_FAILED_VERIFICATION;
  }
  if (absl::IsCancelled(ended) || absl::IsDeadlineExceeded(ended)) {
    return v1::RUN_STATUS_CANCELLED;
  }
  return v1::RUN_STATUS_ERROR;
}

// "ok" for RUN_STATUS_OK, "failed_verification" for
// RUN_STATUS_FAILED_VERIFICATION, ...; "unspecified" for 0.
inline std::string RunStatusName(v1::RunStatus status) {
  constexpr absl::string_view kPrefix = "RUN_STATUS_";
  std::string name = v1::RunStatus_Name(status);
  if (absl::string_view(name).substr(0, kPrefix.size()) == kPrefix) {
    name.erase(0, kPrefix.size());
  }
  return absl::AsciiStrToLower(name);
}

// The status that RunStatusName gives `name`; nullopt for any other text.
inline std::optional<v1::RunStatus> ParseRunStatusName(absl::string_view name) {
  v1::RunStatus status;
  if (name.empty() ||
      !v1::RunStatus_Parse(absl::StrCat("RUN_STATUS_", absl::AsciiStrToUpper(name)), &status)) {
    return std::nullopt;
  }
  return status;
}

}  // namespace kbench::server
