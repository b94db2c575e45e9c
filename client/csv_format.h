// The machine-readable report of a run as CSV (--csv).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client/run_report.h"

namespace kbench::client {

// The header line, without a newline: run_id,op,dtype, then the problem
// columns, the union of every op's problem fields in registry order
// (n,batch,heads,seq_len,head_dim,causal today), then variant,samples,
// median_ms,p10_ms,p90_ms,mean_ms,std_ms,median_ci_low_ms,median_ci_high_ms,
// throughput,throughput_unit,fraction_of_ceiling,max_abs_error,rel_l2_error,
// verified,speedup,speedup_ci_low,speedup_ci_high,verdict,stop_reason,
// median_ci_confidence,speedup_min_effect
std::string CsvHeader();

// Whether FormatCsv starts with the header line.
enum class CsvHeaderLine { kWith, kWithout };

// The header line (unless kWithout: for appending to a file that has one),
// then one line per variant result, each ending in '\n'.
// Fields that do not apply are empty: a problem column of another op's
// field (n for attention; batch ... causal for vector add); the speedup
// fields for the baseline. Booleans are "true"/"false"; each field is
// written by proto::text::CsvField (quoted when it holds a comma or a quote, RFC
// 4180; a quote before text a spreadsheet would run as a formula).
std::string FormatCsv(const RunReport& report, CsvHeaderLine header = CsvHeaderLine::kWith);

// Whether `fd` is a regular file that already holds something before the
// write position, as stdout is under `kbench --csv ... >> runs.csv` from
// the second call on: its header is there already.
bool WritesAfterExistingContent(int fd);

// The header choice for CSV on stdout: kWith when `wanted` (no --no-header)
// and stdout does not append to a file that has content already.
CsvHeaderLine StdoutCsvHeader(bool wanted);

// The header's columns that describe the run rather than a variant: run_id,
// op, dtype and the problem columns.
std::vector<std::string> CsvRunColumns();

// Their values for `report`: the first fields of each of its rows.
std::vector<std::string> CsvRunFields(const RunReport& report);

// The fields of FormatCsv's rows, without the header: one row per variant
// result, in the header's order.
std::vector<std::vector<std::string>> CsvRows(const RunReport& report);

// One CSV line of `fields`, ending in '\n', quoted as FormatCsv quotes.
std::string CsvLine(const std::vector<std::string>& fields);

// The fields of one CSV line (without its '\n'), quotes undone: the inverse
// of CsvLine for lines without a line break inside a field.
std::vector<std::string> SplitCsvLine(std::string_view line);

}  // namespace kbench::client
