// The run_results table (migration 13): each variant result and each
// speedup of an ended run as a row of its own, with the run's filter
// columns (label, user_name, op, status, accepted_unix_ms, submission_id:
// the names BuildListQuery's conditions use) and what makes results
// comparable (learner, op, problem, dtype, variant, baseline) as columns,
// its score (a result's median in ms, a speedup's ratio) as a number, and
// the message itself serialized. An assignment's tables (RunStore::Results)
// pick and count rows in SQL from it instead of reading the runs.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/history.pb.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"

namespace kbench::server::store {

// Writes the run_results rows of the runs whose runs-table row matches
// `condition` (SQL over runs' columns, with `?` placeholders bound from
// `params`), at most `limit` runs in run_id order; returns the largest
// run_id read, or "" when none matched. Runs without results write no row.
// Called by Finish (one run, in its transaction) and by migration 13's
// backfill (every run, a page at a time).
absl::StatusOr<std::string> WriteResultsOfRuns(SqlDatabase& database, const std::string& condition,
                                               std::vector<SqlValue> params, int64_t limit);

// The rows of `view` among the results of the runs `filter` selects (see
// RunStore::Results).
absl::StatusOr<ResultRows> ReadResults(SqlDatabase& database, ResultView view,
                                       const v1::ListRunsRequest& filter);

}  // namespace kbench::server::store
