// Words and numbers shared by the table, CSV, progress and info output, so
// that every format spells a verdict, a stop reason or a shape the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "client/run_report.h"
#include "kbench/v1/kbench.pb.h"

namespace kbench::client {

// `value` with `digits` significant digits and no exponent for values of
// 1e-4 and up: 0.01234, 12.34, 812.3, 4238 (digits = 4).
std::string FormatSignificant(double value, int digits = 4);

// A measured value (a time, a throughput) to 4 significant figures with
// its trailing zeros, so that a column's values read alike: "5.930",
// "5.499", "0.003100", "812.3", "1874"; values of 10^4 and more as whole
// numbers.
std::string FormatMeasured(double value);

// `value` in scientific notation with two decimals: 3.10e-08.
std::string FormatScientific(double value);

// "812.3 GB/s", "12.40 TFLOP/s" (FormatMeasured).
std::string FormatThroughput(const v1::Throughput& throughput);

// "2.31x [2.28, 2.35] faster"; with too few rounds for a verdict
// "1.06x, no verdict (2 rounds; needs 6)", without an interval.
std::string FormatSpeedup(const v1::Speedup& speedup);

// How the speedups of a run were judged, for under a table: "speedup:
// baseline median / variant median; interval: 95% bootstrap over 40
// rounds; verdict: interval on one side of 1 and at least 2% effect".
// Empty when `speedups` is.
std::string SpeedupFootnote(const std::vector<v1::Speedup>& speedups);

// "faster", "slower", "no difference", "no verdict"; "-" when unspecified.
std::string_view VerdictText(v1::Verdict verdict);

// "converged", "time budget", "max samples"; "-" when unspecified.
std::string_view StopReasonText(v1::StopReason reason);

// The op and its problem as the op describes it (proto::ops::Op::Describe):
// "vector_add n=1048576" or
// "attention batch=1 heads=8 seq_len=4096 head_dim=64 causal".
std::string DescribeShape(const v1::RunRequest& request);

// The relative standard error of the mean as a percentage, "0.312%"; "-"
// when the statistics have none (a single sample).
std::string FormatRse(const v1::Statistics& stats);

// Rows of text as left-aligned columns two spaces apart, each line ending
// in '\n' without trailing spaces; the first row is the header. Cells are
// shown Printable (terminal_text.h): labels and names come from other users.
std::string FormatColumns(std::vector<std::vector<std::string>> rows);

// How the server compiled a learner's kernel, on one line: "sm_90a, 40
// registers, spills 8 B stored / 0 B loaded, 0 B static shared, 0 B local
// per thread".
std::string CompileSummary(const v1::CompileFacts& facts);

// Bytes with a binary unit: "50 MiB", "141 GiB", "512 B".
std::string FormatBytes(uint64_t bytes);

}  // namespace kbench::client
