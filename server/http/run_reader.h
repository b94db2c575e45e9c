// Reads the runs behind the dashboard's tables from the results store: every
// run matching a filter, newest first, without samples, a page at a time, up
// to a limit that keeps one request's memory and time bounded.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/history.pb.h"
#include "server/store/run_store.h"

namespace kbench::server::http {

// Runs one table reads at most; a table built from more says truncated.
inline constexpr size_t kMaxRunsRead = 20000;

struct RunSet {
  // Newest first.
  std::vector<v1::RunRecord> runs;
  // True when more runs matched than were read.
  bool truncated = false;
};

// The runs matching `filter`'s filters (its page_size and page_token are
// ignored). Errors are the store's.
absl::StatusOr<RunSet> ReadRuns(store::RunStore& store, v1::ListRunsRequest filter,
                                size_t max_runs = kMaxRunsRead);

}  // namespace kbench::server::http
