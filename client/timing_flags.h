// The timing options a run or a sweep may set (v1::TimingOptions), each
// with its flag name, help and parser in one table, so that the run
// subcommands, `kbench sweep` and sweep spec files (docs/SWEEPS.md: the
// same names without "--") read them alike.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

struct TimingFlag {
  std::string name;       // "--budget-ms"
  std::string type_name;  // "MS"
  std::string help;
  // Parses `text` into its field of `timing`; INVALID_ARGUMENT quoting the
  // text when it is not a value of the field (a negative time, "nan").
  absl::Status (*set)(v1::TimingOptions& timing, std::string_view text);
};

// In the order --help lists them.
const std::vector<TimingFlag>& TimingFlags();

// The flag named `name` ("--budget-ms"), or nullptr.
const TimingFlag* FindTimingFlag(std::string_view name);

// Adds every timing flag to `command`, in its own help group, each setting
// its field of `timing` (which must outlive the parse).
void AddTimingFlags(CLI::App& command, v1::TimingOptions& timing);

}  // namespace kbench::client
