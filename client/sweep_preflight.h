// A sweep checked against what the server offers before any point runs, so
// an impossible sweep (a dtype the backend does not run, a variant it does
// not have) is refused at once, naming its points, instead of point by
// point with a refused run each.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// The most points a refusal lists one by one; the rest are counted.
inline constexpr size_t kMaxListedPoints = 10;

// OK when the server of `info` offers every point's op and each of its
// variants (or, with none named, at least one variant) for the point's
// dtype, and the op's checks of the problem against those variants pass
// (Op::CheckVariants: e.g. a head_dim a variant does not run). Otherwise
// INVALID_ARGUMENT: how many points cannot run, then one line per point (at
// most kMaxListedPoints) with the reason. The problem's own sizes against
// the server's limits are left to the server, which names the field and the
// limit.
absl::Status PreflightSweep(const v1::ServerInfo& info, const std::vector<v1::RunRequest>& points);

}  // namespace kbench::client
