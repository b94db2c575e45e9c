#include "client/result_text.h"

#include <algorithm>

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "client/terminal_text.h"
#include "proto/ops/registry.h"

namespace kbench::client {

std::string FormatSignificant(double value, int digits) {
  char text[64];
  if (std::fabs(value) >= std::pow(10.0, digits)) {
    std::snprintf(text, sizeof(text), "%.0f", value);
  } else {
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
  }
  return text;
}

std::string FormatMeasured(double value) {
  constexpr int kDigits = 4;
  char text[64];
  if (value == 0 || !std::isfinite(value) || std::fabs(value) >= std::pow(10.0, kDigits)) {
    std::snprintf(text, sizeof(text), "%.0f", value);
    return text;
  }
  std::snprintf(text, sizeof(text), "%#.*g", kDigits, value);  // '#' keeps trailing zeros
  std::string out = text;
  if (!out.empty() && out.back() == '.') out.pop_back();  // "1980." from %#g
  return out;
}

std::string FormatScientific(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.2e", value);
  return text;
}

std::string FormatThroughput(const v1::Throughput& throughput) {
  return FormatMeasured(throughput.value()) + " " + throughput.unit();
}

std::string FormatSpeedup(const v1::Speedup& speedup) {
  char text[96];
  if (speedup.verdict() == v1::VERDICT_TOO_FEW_SAMPLES) {
    std::snprintf(text, sizeof(text), "%.2fx, no verdict (%u rounds; needs %u)", speedup.speedup(),
                  speedup.rounds(), speedup.verdict_min_rounds());
    return text;
  }
  std::snprintf(text, sizeof(text), "%.2fx [%.2f, %.2f] ", speedup.speedup(), speedup.ci_low(),
                speedup.ci_high());
  return text + std::string(VerdictText(speedup.verdict()));
}

std::string SpeedupFootnote(const std::vector<v1::Speedup>& speedups) {
  if (speedups.empty()) return "";
  std::string text = "speedup: baseline median / variant median";
  const v1::Speedup* judged = nullptr;
  for (const v1::Speedup& s : speedups)
    if (s.ci_confidence() > 0) {
      judged = &s;
      break;
    }
  if (judged != nullptr) {
    text += "; interval: " + FormatSignificant(judged->ci_confidence() * 100, 3) + "%";
    if (judged->rounds() > 0)  // runs stored before rounds were recorded have none
      text += " bootstrap over " + std::to_string(judged->rounds()) + " rounds";
    text += "; verdict: interval on one side of 1 and at least " +
            FormatSignificant(judged->min_effect() * 100, 3) + "% effect";
  }
  for (const v1::Speedup& s : speedups)
    if (s.verdict() == v1::VERDICT_TOO_FEW_SAMPLES) {
      text += "; no verdict from " + std::to_string(s.rounds()) + " rounds (" +
              std::to_string(s.verdict_min_rounds()) +
              " needed): raise --budget-ms or --max-samples";
      break;
    }
  return text;
}

std::string_view VerdictText(v1::Verdict verdict) {
  switch (verdict) {
    case v1::VERDICT_FASTER:
      return "faster";
    case v1::VERDICT_SLOWER:
      return "slower";
    case v1::VERDICT_NO_DIFFERENCE:
      return "no difference";
    case v1::VERDICT_TOO_FEW_SAMPLES:
      return "no verdict";
    default:
      return "-";
  }
}

std::string_view StopReasonText(v1::StopReason reason) {
  switch (reason) {
    case v1::STOP_REASON_CONVERGED:
      return "converged";
    case v1::STOP_REASON_TIME_BUDGET:
      return "time budget";
    case v1::STOP_REASON_MAX_SAMPLES:
      return "max samples";
    default:
      return "-";
  }
}

std::string DescribeShape(const v1::RunRequest& request) {
  const proto::ops::Op* op = proto::ops::OpOf(request);
  return op == nullptr ? std::string("unknown op") : op->Describe(request);
}

std::string FormatRse(const v1::Statistics& stats) {
  if (!stats.has_rse()) return "-";
  return FormatSignificant(stats.rse() * 100, 3) + "%";
}

std::string FormatBytes(uint64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return FormatSignificant(value, 3) + " " + kUnits[unit];
}

std::string FormatColumns(std::vector<std::vector<std::string>> rows) {
  for (auto& row : rows)
    for (std::string& cell : row) cell = Printable(cell);
  std::vector<size_t> widths(rows.empty() ? 0 : rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  std::string text;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      line += row[c] + std::string(c < widths.size() ? widths[c] - row[c].size() : 0, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + "\n";
  }
  return text;
}

std::string CompileSummary(const v1::CompileFacts& facts) {
  return absl::StrCat(facts.arch(), ", ", facts.registers_per_thread(), " registers, spills ",
                      facts.spill_store_bytes(), " B stored / ", facts.spill_load_bytes(),
                      " B loaded, ", facts.static_shared_memory_bytes(), " B static shared, ",
                      facts.local_memory_bytes(), " B local per thread");
}

}  // namespace kbench::client
