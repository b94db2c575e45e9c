// The run history as the CLI prints it: `kbench runs` (a table, CSV or JSON
// lines of runs), `kbench show` (everything of one run) and `kbench export`
// (CSV, one row per variant per run; or JSON lines of RunRecords).
// `kbench show`'s text is in run_details_format.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "client/run_report.h"
#include "kbench/v1/history.pb.h"

namespace kbench::client {

// "ok", "failed_verification", "refused", ...: the RunStatus name without
// its prefix, lower case; "-" for unspecified.
std::string RunStatusName(v1::RunStatus status);

// A status by RunStatusName ('-' may stand for '_': failed-verification).
// INVALID_ARGUMENT listing the names otherwise.
absl::StatusOr<v1::RunStatus> ParseRunStatus(std::string_view text);

// The run as the formatters of a live run see it: request, run id, started,
// results and summary.
RunReport ReportOf(const v1::RunRecord& run);

// A table, one run a line, newest first as given: run id, time accepted
// (local), user (else the peer), label, op and shape, dtype, status, the
// fastest verified variant with its median and throughput, and verified
// (yes, NO, or - for a run without results). "no runs" when empty.
std::string FormatRunsTable(const std::vector<v1::RunRecord>& runs);

// CSV of runs: a header, then one line per run with the table's fields
// (times as Unix milliseconds and local text, the problem columns of
// CsvHeader, user and peer apart, the error of a failed run).
std::string FormatRunsCsv(const std::vector<v1::RunRecord>& runs);

// One RunRecord as one JSON line (json_format.h's mapping), ending in '\n'.
std::string FormatRunRecordJson(const v1::RunRecord& run);

// The header of `kbench export --csv`: accepted_unix_ms,accepted,user,peer,
// label,status,error,backend,device, then CsvHeader()'s columns.
std::string ExportCsvHeader();

// The export rows of one run, each ending in '\n': one per variant result,
// the run's fields first; a run without results has one row whose variant
// columns are empty, so that refused and failed runs are counted too.
std::string FormatExportCsvRows(const v1::RunRecord& run);

}  // namespace kbench::client
