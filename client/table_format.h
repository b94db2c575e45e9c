// The human-readable report of a run, for stdout when neither --json nor
// --csv is given.
#pragma once

#include <string>

#include "client/run_report.h"

namespace kbench::client {

// Three parts, each line ending in '\n':
// - a header line: op and shape, dtype, backend and device, total samples,
//   timing method, run id and seed;
// - a table, one row per variant result, with the columns variant, median
//   ms, p10 ms, p90 ms, throughput, % of ceiling ("-" when no ceiling), rel
//   err, verified (yes/NO) and speedup ("baseline" for the first variant,
//   "2.31x [2.28, 2.35] faster" for the others);
// - the throughput formula and ceiling, each variant's stop reason, its
//   relative standard error of the mean ("-" for a single sample), and SM
//   clocks when the backend reports them.
// Parts of the report that are missing print as "-".
std::string FormatTable(const RunReport& report);

}  // namespace kbench::client
