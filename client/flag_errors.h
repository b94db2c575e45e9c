// Turns a bad flag value into the CLI11 error that names the flag, so that
// every parse error prints alike: "kbench: --seq: '0' is not a positive
// count ...". For use inside CLI11 option callbacks and validators.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::client {

// The value, or throws CLI::ValidationError("flag: message").
template <typename T>
T ValueOrThrow(absl::StatusOr<T> value, const std::string& flag) {
  if (!value.ok()) {
    throw CLI::ValidationError(flag, std::string(value.status().message()));
  }
  return *std::move(value);
}

inline void OkOrThrow(const absl::Status& status, const std::string& flag) {
  if (!status.ok()) {
    throw CLI::ValidationError(flag, std::string(status.message()));
  }
}

}  // namespace kbench::client
