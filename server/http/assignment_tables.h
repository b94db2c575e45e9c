// The tables of one assignment (a label), built from the rows the store
// picked and counted (store::RunStore::Results, one view per table).
// Results are compared only within one op, problem and dtype (see
// run_fields.h), and only results whose output verified count as
// achievements. Each table is truncated when its rows were.
#pragma once

#include "server/http/table.h"
#include "server/store/run_store.h"

namespace kbench::server::http {

// Each learner's best verified result per variant: for each learner, op,
// problem, dtype and variant, the verified result with the lowest median
// time, and how many verified results competed. Columns: learner, op,
// problem, dtype, variant, median_ms, throughput, unit, percent_of_ceiling,
// samples, attempts, run_id, accepted_unix_ms. Sorted by op, problem,
// dtype, variant, then median_ms. From ResultView::kBestVerified.
Table BestResultsTable(const store::ResultRows& best);

// Each learner's best speedup per variant over its baseline, from runs
// whose every variant verified. Columns: learner, op, problem, dtype,
// variant, baseline, speedup, ci_low, ci_high, ci_confidence, rounds,
// verdict, run_id. Sorted by
// op, problem, dtype, variant, baseline, then speedup, highest first. From
// ResultView::kBestSpeedups.
Table SpeedupsTable(const store::ResultRows& best);

// Every verified variant result as a point of a roofline-style chart: the
// work one sample does (GB moved, or GFLOP) against the throughput achieved,
// with the device's ceiling of that unit (throughput / fraction of ceiling;
// null when the server measured none). Columns: learner, op, problem,
// dtype, variant, work, work_unit, throughput, unit, ceiling,
// percent_of_ceiling, run_id. Oldest first. From ResultView::kVerified.
Table ThroughputPointsTable(const store::ResultRows& verified);

// Every variant result whose output failed verification. Columns: learner,
// run_id, accepted_unix_ms, op, problem, dtype, variant, max_abs_error,
// rel_l2_error, tolerance, non_finite, method. Newest first. From
// ResultView::kFailedVerification.
Table FailedVerificationsTable(const store::ResultRows& failed);

}  // namespace kbench::server::http
