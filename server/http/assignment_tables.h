// The tables of one assignment (a label), built from its runs. Results are
// compared only within one op, problem and dtype (see run_fields.h), and
// only results whose output verified count as achievements.
#pragma once

#include "server/http/run_reader.h"
#include "server/http/table.h"

namespace kbench::server::http {

// Each learner's best verified result per variant: for each learner, op,
// problem, dtype and variant, the verified result with the lowest median
// time, and how many verified results competed. Columns: learner, op,
// problem, dtype, variant, median_ms, throughput, unit, percent_of_ceiling,
// samples, attempts, run_id, accepted_unix_ms. Sorted by op, problem,
// dtype, variant, then median_ms.
Table BestResultsTable(const RunSet& runs);

// Each learner's best speedup per variant over its baseline, from runs
// whose every variant verified. Columns: learner, op, problem, dtype,
// variant, baseline, speedup, ci_low, ci_high, verdict, run_id. Sorted by
// op, problem, dtype, variant, baseline, then speedup, highest first.
Table SpeedupsTable(const RunSet& runs);

// Every verified variant result as a point of a roofline-style chart: the
// work one sample does (GB moved, or GFLOP) against the throughput achieved,
// with the device's ceiling of that unit (throughput / fraction of ceiling;
// null when the server measured none). Columns: learner, op, problem,
// dtype, variant, work, work_unit, throughput, unit, ceiling,
// percent_of_ceiling, run_id. Oldest first.
Table ThroughputPointsTable(const RunSet& runs);

// Every variant result whose output failed verification. Columns: learner,
// run_id, accepted_unix_ms, op, problem, dtype, variant, max_abs_error,
// rel_l2_error, tolerance, non_finite, method. Newest first.
Table FailedVerificationsTable(const RunSet& runs);

}  // namespace kbench::server::http
