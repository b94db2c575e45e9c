// Times on the command line (--since, --until) and in the history's output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kbench::client {

// A time as milliseconds since the Unix epoch, from:
//   a span before `now_unix_ms`: 90s, 30m, 12h, 7d;
//   a local date or date and time: 2024-05-01, 2024-05-01T14:30,
//   2024-05-01 14:30:05; with a trailing Z, UTC (2024-05-01T14:30Z).
// INVALID_ARGUMENT quoting the text otherwise.
absl::StatusOr<int64_t> ParseTime(std::string_view text, int64_t now_unix_ms);

// Now, in milliseconds since the Unix epoch: the `now_unix_ms` of the
// calls that read a time relative to it.
int64_t NowUnixMs();

// Local time to the second, "2024-05-01 14:30:05"; "-" for 0.
std::string FormatLocalTime(int64_t unix_ms);

}  // namespace kbench::client
