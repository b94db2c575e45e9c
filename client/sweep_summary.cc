#include "client/sweep_summary.h"

#include <algorithm>

#include "client/flag_values.h"
#include "client/result_text.h"

namespace kbench::client {
namespace {

using Row = std::vector<std::string>;

}  // namespace

std::string DescribePoint(const v1::RunRequest& point) {
  return DescribeShape(point) + ", " + DTypeName(point.dtype());
}

PointOutcome OutcomeOfReport(const RunReport& report) {
  PointOutcome outcome;
  outcome.point = DescribePoint(report.request);
  outcome.result =
      AllVerified(report) ? PointOutcome::Result::kOk : PointOutcome::Result::kFailedVerification;
  if (const v1::VariantResult* best = BestVerified(report)) {
    outcome.best_variant = best->variant();
    outcome.best_median_ms = best->stats().median_ms();
    const v1::Speedup* speedup = FindSpeedup(report, best->variant());
    outcome.best_speedup = speedup != nullptr ? FormatSpeedup(*speedup) : "baseline";
  }
  return outcome;
}

std::string OutcomeText(const PointOutcome& outcome) {
  switch (outcome.result) {
    case PointOutcome::Result::kOk:
      return "ok, best " + outcome.best_variant +
             (outcome.best_speedup == "baseline" ? " (the baseline)" : " " + outcome.best_speedup);
    case PointOutcome::Result::kFailedVerification:
      return "FAILED verification";
    case PointOutcome::Result::kFailed:
      return "failed: " + outcome.error;
  }
  return "";
}

std::string FormatSweepSummary(const std::vector<PointOutcome>& outcomes, size_t skipped,
                               size_t not_run) {
  std::vector<Row> rows = {{"point", "best", "median ms", "speedup", "verified"}};
  std::string failures;
  size_t ok = 0, failed_verification = 0, failed = 0;
  for (const PointOutcome& o : outcomes) {
    switch (o.result) {
      case PointOutcome::Result::kOk:
        ++ok;
        break;
      case PointOutcome::Result::kFailedVerification:
        ++failed_verification;
        failures += "  " + o.point + ": a variant FAILED verification\n";
        break;
      case PointOutcome::Result::kFailed:
        ++failed;
        failures += "  " + o.point + ": " + o.error + "\n";
        continue;  // no row: it has no results
    }
    const bool any = !o.best_variant.empty();
    rows.push_back({o.point, any ? o.best_variant : "-",
                    any ? FormatMeasured(o.best_median_ms) : "-", any ? o.best_speedup : "-",
                    o.result == PointOutcome::Result::kOk ? "yes" : "NO"});
  }
  std::string text;
  if (rows.size() > 1) text += FormatColumns(rows);
  if (!failures.empty()) text += "failed points:\n" + failures;
  text += std::to_string(outcomes.size()) + (outcomes.size() == 1 ? " point: " : " points: ") +
          std::to_string(ok) + " ok, " + std::to_string(failed_verification) +
          " failed verification, " + std::to_string(failed) + " failed";
  if (skipped > 0) {
    text += "; " + std::to_string(skipped) + " skipped (already in the file)";
  }
  if (not_run > 0) text += "; " + std::to_string(not_run) + " not run";
  return text + "\n";
}

ExitCode SweepExitCode(const std::vector<PointOutcome>& outcomes) {
  ExitCode code = ExitCode::kOk;
  for (const PointOutcome& o : outcomes) {
    if (o.result == PointOutcome::Result::kFailed) return ExitCode::kServerError;
    if (o.result == PointOutcome::Result::kFailedVerification) {
      code = ExitCode::kVerificationFailed;
    }
  }
  return code;
}

}  // namespace kbench::client
