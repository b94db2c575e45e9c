#include "client/table_format.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "client/flag_values.h"
#include "client/result_text.h"

namespace kbench::client {
namespace {

using Row = std::vector<std::string>;

const Row kColumns = {"variant",   "median ms", "p10 ms",   "p90 ms", "throughput",
                      "% ceiling", "rel err",   "verified", "speedup"};

// Columns holding text are left-aligned, numbers right-aligned.
bool IsLeftAligned(size_t column) { return column == 0 || column == 7 || column == 8; }

std::string HeaderLine(const RunReport& report) {
  uint64_t samples = 0;
  for (const v1::VariantResult& result : report.results) {
    samples += result.stats().samples();
  }
  std::string line = DescribeShape(report.request) + ", " + DTypeName(report.request.dtype());
  if (report.started) {
    line += ", " + report.started->backend() + " (" + report.started->device() + ")";
  }
  line += ", " + std::to_string(samples) + " samples";
  if (report.started) line += ", " + report.started->timing_method();
  line += ", run " + (report.run_id.empty() ? "-" : report.run_id);
  if (report.started) line += ", seed " + std::to_string(report.started->seed());
  return line + "\n";
}

std::string PercentOfCeiling(double fraction) {
  if (fraction == 0) return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f%%", fraction * 100);
  return text;
}

Row ResultRow(const RunReport& report, const v1::VariantResult& result, bool is_baseline) {
  const v1::Statistics& stats = result.stats();
  std::string speedup = "-";
  if (is_baseline) {
    speedup = "baseline";
  } else if (const v1::Speedup* found = FindSpeedup(report, result.variant())) {
    speedup = FormatSpeedup(*found);
  }
  return {result.variant(),
          FormatMeasured(stats.median_ms()),
          FormatMeasured(stats.p10_ms()),
          FormatMeasured(stats.p90_ms()),
          FormatThroughput(result.throughput()),
          PercentOfCeiling(result.throughput().fraction_of_ceiling()),
          FormatScientific(result.verification().rel_l2_error()),
          result.verification().passed() ? "yes" : "NO",
          speedup};
}

std::string Table(const std::vector<Row>& rows) {
  std::vector<size_t> widths(kColumns.size(), 0);
  for (const Row& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string text;
  for (const Row& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string padding(widths[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      line += IsLeftAligned(c) ? row[c] + padding : padding + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  return text;
}

// What a learner's kernel printed: its first kMaxPrintedLines lines, and
// how much more there was (all the server kept is in --json).
std::string PrintedLines(const v1::VariantResult& result) {
  constexpr int kMaxPrintedLines = 20;
  if (result.kernel_output_bytes() == 0) return "";
  const std::string& out = result.kernel_output();
  std::string text =
      absl::StrCat("printed by ", result.variant(), " (", result.kernel_output_bytes(), " bytes");
  if (out.size() < result.kernel_output_bytes())
    absl::StrAppend(&text, ", the first ", out.size(), " kept");
  text += "):\n";
  size_t start = 0;
  int lines = 0;
  while (start < out.size() && lines < kMaxPrintedLines) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    absl::StrAppend(&text, "  ", out.substr(start, end - start), "\n");
    start = end + 1;
    ++lines;
  }
  if (start < out.size())
    absl::StrAppend(&text, "  ... ", out.size() - start, " more bytes kept; --json has them\n");
  return text;
}

std::string FooterLines(const RunReport& report) {
  std::vector<std::string> formulas;
  std::string stops;
  std::string rses;
  std::string clocks;
  std::string configs;   // how variants that choose a configuration were launched
  std::string compiled;  // how learners' kernels were compiled
  std::vector<std::string> checks;
  for (const v1::VariantResult& result : report.results) {
    const v1::Verification& v = result.verification();
    std::string check = v.method();
    if (!v.passed() && !v.failure().empty()) check = result.variant() + " FAILED: " + v.failure();
    if (v.checked_runs() > 0) check += "; " + std::to_string(v.checked_runs()) + " runs checked";
    if (!check.empty() && std::find(checks.begin(), checks.end(), check) == checks.end())
      checks.push_back(check);
    std::string formula = result.throughput().formula();
    if (!result.throughput().ceiling().empty()) {
      formula += "; ceiling: " + result.throughput().ceiling();
    }
    if (std::find(formulas.begin(), formulas.end(), formula) == formulas.end()) {
      formulas.push_back(formula);
    }
    stops += (stops.empty() ? "" : ", ") + result.variant() + " " +
             std::string(StopReasonText(result.stats().stop_reason()));
    rses += (rses.empty() ? "" : ", ") + result.variant() + " " + FormatRse(result.stats());
    if (!result.config().empty())
      configs += (configs.empty() ? "" : "; ") + result.variant() + " " + result.config();
    if (result.has_compile())
      compiled += (compiled.empty() ? "" : "; ") + result.variant() + " " +
                  CompileSummary(result.compile());
    const v1::Clocks& c = result.clocks();
    if (c.available()) {
      clocks += (clocks.empty() ? "" : ", ") + result.variant() + " " +
                FormatSignificant(c.sm_clock_mhz_min()) + "-" +
                FormatSignificant(c.sm_clock_mhz_max()) + " MHz" +
                (c.throttled() ? " throttled" : "");
    }
  }
  std::string text;
  for (const std::string& formula : formulas) {
    text += "throughput: " + formula + "\n";
  }
  if (!stops.empty()) text += "stopped: " + stops + "\n";
  if (!rses.empty()) text += "rse of the mean: " + rses + "\n";
  if (!clocks.empty()) text += "clocks: " + clocks + "\n";
  if (!configs.empty()) text += "launched: " + configs + "\n";
  if (!compiled.empty()) text += "compiled: " + compiled + "\n";
  if (report.summary && !report.results.empty()) {
    // A learner's kernel against the built-ins after the baseline.
    std::string others;
    for (const v1::Speedup& s : report.summary->speedups())
      if (s.baseline() != report.results.front().variant())
        others += (others.empty() ? "" : "; ") + s.variant() + " vs " + s.baseline() + " " +
                  FormatSpeedup(s);
    if (!others.empty()) text += "also: " + others + "\n";
  }
  for (const std::string& check : checks) text += "checked: " + check + "\n";
  for (const v1::VariantResult& result : report.results) text += PrintedLines(result);
  if (report.started && report.started->backend() == "cpu")
    text +=
        "note: CPU timings check correctness and cost on this CPU; they say nothing about "
        "a GPU\n";
  if (report.summary) {
    const std::vector<v1::Speedup> speedups(report.summary->speedups().begin(),
                                            report.summary->speedups().end());
    if (const std::string note = SpeedupFootnote(speedups); !note.empty()) text += note + "\n";
  }
  return text;
}

}  // namespace

std::string FormatTable(const RunReport& report) {
  std::vector<Row> rows = {kColumns};
  for (size_t i = 0; i < report.results.size(); ++i) {
    rows.push_back(ResultRow(report, report.results[i], i == 0));
  }
  return HeaderLine(report) + "\n" + Table(rows) + "\n" + FooterLines(report);
}

}  // namespace kbench::client
