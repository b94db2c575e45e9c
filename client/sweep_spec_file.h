// Sweep spec files: a sweep written down, in YAML or JSON (JSON is read as
// YAML). Keys are the command line's flag names without "--":
//
//   op: attention              # required: an op of the registry
//   axes:                      # the op's problem fields, by flag name
//     seq: 2^9..2^12           # as on the command line, or a list:
//     head-dim: [64, 128]      #   [64, 128] or "64,128"
//     causal: both
//   dtype: [fp32, fp16]        # optional; default fp32
//   variant: [naive, fused]    # optional; default every variant offered
//   timing: {budget-ms: 200, min-samples: 10}   # optional; timing flags
//   seed: 42                   # optional
//   label: lab3-attention      # optional; --label overrides it
//
// docs/SWEEPS.md has the full description and docs/examples/ an example.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "client/sweep_spec.h"

namespace kbench::client {

// Parses the spec in `text`; `name` (the file's path) starts every error.
// INVALID_ARGUMENT naming the file, the key (e.g. "axes.seq") and its line
// for an unknown key, a missing op, a value its key refuses, or text that
// is not YAML or JSON.
absl::StatusOr<SweepSpec> ParseSweepSpec(const std::string& text, const std::string& name);

// Reads the file at `path` and parses it; NOT_FOUND naming it when it
// cannot be read.
absl::StatusOr<SweepSpec> LoadSweepSpec(const std::string& path);

}  // namespace kbench::client
