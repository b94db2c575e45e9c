// Assignment files: an assignment written down for `kbench assignment
// create|edit`, in YAML or JSON (JSON is read as YAML):
//
//   name: lab1                    # required: 1 to 64 of A-Z a-z 0-9 . _ -
//   title: Vector add, faster     # optional
//   cohort: cohort-1              # an admin's; an instructor's is their own
//   opens: 2026-12-01T09:00Z      # optional: a date and time (Z: UTC, else
//                                 # local), or a span from now (12h, 3d)
//   due: 2026-12-20T23:59Z        # optional; later submissions are late
//   submissions-per-hour: 6       # optional: 1 to 60 (default 6)
//   show-names: false             # optional: learners see others' names
//   problems:                     # a sweep spec (docs/SWEEPS.md): each
//     op: vector_add              #   point is a problem
//     axes: {n: [2^20, 2^24]}
//     variant: [naive, vectorized]  # required: the built-ins shown beside
//     timing: {budget-ms: 200}    #   each submission, the first the baseline
//
// docs/ASSIGNMENTS.md has the full description.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/assignment.pb.h"

namespace kbench::client {

// Parses the assignment in `text`; `name` (the file's path) starts every
// error. INVALID_ARGUMENT naming the key for an unknown key, a missing
// name or problems, a value its key refuses; times relative to now_unix_ms.
absl::StatusOr<v1::Assignment> ParseAssignment(const std::string& text, const std::string& name,
                                               int64_t now_unix_ms);

// Reads the file at `path` (none when empty) and parses it, each of
// `overrides` (a key as the file spells it, e.g. "due", and its value; for
// "problems" a sweep spec in YAML's flow style) replacing the file's;
// NOT_FOUND naming the file when it cannot be read, INVALID_ARGUMENT
// naming the flag (--due) for a value its key refuses, or --name or
// --problems when neither the file nor the flags give it.
absl::StatusOr<v1::Assignment> LoadAssignment(
    const std::string& path, int64_t now_unix_ms,
    const std::vector<std::pair<std::string, std::string>>& overrides = {});

}  // namespace kbench::client
