// The tables of the cohort's history: its labels, its learners, one
// learner's runs over time, and a plain list of runs.
#pragma once

#include <string>

#include "kbench/v1/history.pb.h"
#include "server/http/run_reader.h"
#include "server/http/table.h"
#include "server/store/run_store.h"

namespace kbench::server::http {

// One row per label (an empty label too) from the store's tallies by label
// (RunStore::Tally): label, runs, learners, ok, failed_verification,
// last_unix_ms (the newest run's acceptance). Newest first.
Table LabelsTable(const store::RunTallies& by_label);

// One row per learner (store::LearnerOf) from the store's tallies by
// learner: learner, runs, labels, ok, failed_verification, last_unix_ms.
// Newest first.
Table LearnersTable(const store::RunTallies& by_learner);

// The runs of `learner` among `runs`, oldest first, one row per variant
// result (one row with empty result cells for a run without results):
// run_id, accepted_unix_ms, label, op, problem, dtype, status, variant,
// median_ms, throughput, unit, percent_of_ceiling, verified, error.
Table LearnerHistoryTable(const RunSet& runs, const std::string& learner);

// One row per run, in the order given: run_id, learner, label, op, problem,
// dtype, status, error, accepted_unix_ms, started_unix_ms, ended_unix_ms,
// device, backend.
Table RunsTable(const v1::ListRunsResponse& page);

}  // namespace kbench::server::http
