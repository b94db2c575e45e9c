// The end of a sweep: how each point ended, the closing summary for stderr,
// and the exit code.
#pragma once

#include <string>
#include <vector>

#include "client/exit_codes.h"
#include "client/run_report.h"

namespace kbench::client {

struct PointOutcome {
  enum class Result {
    kOk,                  // every variant verified
    kFailedVerification,  // the run completed; a variant's output was wrong
    kFailed,              // refused, errored or cancelled: no results
  };
  // The op and shape with the dtype: "attention batch=1 ... seq_len=512 ...,
  // fp16".
  std::string point;
  Result result = Result::kOk;
  // The fastest verified variant, its median and its speedup over the
  // baseline ("baseline" when it is the baseline); empty when none verified.
  std::string best_variant;
  double best_median_ms = 0;
  std::string best_speedup;
  // Why a kFailed point failed, as DescribeRpcFailure says it.
  std::string error;
};

// "attention batch=1 heads=8 seq_len=512 head_dim=64, fp16".
std::string DescribePoint(const v1::RunRequest& point);

// The outcome of a point whose run ended with `report` (complete: a summary
// arrived).
PointOutcome OutcomeOfReport(const RunReport& report);

// "ok", "FAILED verification", "failed: <error>": one word for progress.
std::string OutcomeText(const PointOutcome& outcome);

// The closing summary, each line ending in '\n': a table of the points this
// sweep ran (point, best variant, its median ms, its speedup), then each
// failure with its reason, then a count line: "12 points: 10 ok, 1 failed
// verification, 1 failed; 4 skipped (already in the file); 3 not run"
// ("1 point: ..."). `not_run`: points of the sweep that an interruption
// or an unreachable server left out.
std::string FormatSweepSummary(const std::vector<PointOutcome>& outcomes, size_t skipped,
                               size_t not_run = 0);

// 0 when every point ran and verified; 3 when a point failed other than by
// verification (refused, error, cancelled), even if another failed
// verification; else 1 when a point failed verification.
ExitCode SweepExitCode(const std::vector<PointOutcome>& outcomes);

}  // namespace kbench::client
