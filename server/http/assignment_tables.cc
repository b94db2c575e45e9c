#include "server/http/assignment_tables.h"

#include <algorithm>
#include <compare>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "proto/ops/registry.h"
#include "server/http/natural_order.h"
#include "server/http/run_fields.h"

namespace kbench::server::http {
namespace {

// Results that completed (the run's summary arrived), verified or not.
bool Completed(const v1::RunRecord& run) {
  return run.status() == v1::RUN_STATUS_OK || run.status() == v1::RUN_STATUS_FAILED_VERIFICATION;
}

// What makes two results comparable (all but learner), and whose they are.
struct ResultKey {
  std::string op;
  std::string problem;
  std::string dtype;
  std::string variant;
  // A speedup's baseline; empty for a variant's own result.
  std::string baseline;
  std::string learner;

  static ResultKey Of(const v1::RunRecord& run, const std::string& variant,
                      const std::string& baseline = "") {
    return {run.op(),
            ops::DescribeProblemOf(run.request()),
            DTypeNameOf(run.request().dtype()),
            variant,
            baseline,
            LearnerOf(run)};
  }
  // The comparable part, for ordering groups.
  friend auto operator<=>(const ResultKey&, const ResultKey&) = default;
};

// Whether `a`'s table group (op, problem, dtype, variant, baseline) comes
// before `b`'s, problems in their natural order (n=2000 before n=10000);
// nullopt when they are one group.
std::optional<bool> GroupBefore(const ResultKey& a, const ResultKey& b) {
  if (a.op != b.op) return a.op < b.op;
  if (a.problem != b.problem) return NaturalLess(a.problem, b.problem);
  const auto rest = [](const ResultKey& k) { return std::tie(k.dtype, k.variant, k.baseline); };
  if (rest(a) != rest(b)) return rest(a) < rest(b);
  return std::nullopt;
}

Cell PercentOfCeiling(const v1::Throughput& throughput) {
  if (throughput.fraction_of_ceiling() <= 0) return std::monostate{};
  return throughput.fraction_of_ceiling() * 100;
}

std::string VerdictName(v1::Verdict verdict) {
  absl::string_view name = v1::Verdict_Name(verdict);
  absl::ConsumePrefix(&name, "VERDICT_");
  return absl::AsciiStrToLower(name);
}

}  // namespace

Table BestResultsTable(const RunSet& runs) {
  struct Best {
    const v1::RunRecord* run = nullptr;
    const v1::VariantResult* result = nullptr;
    int64_t attempts = 0;
  };
  std::map<ResultKey, Best> best;
  for (const v1::RunRecord& run : runs.runs) {
    if (!Completed(run)) continue;
    for (const v1::VariantResult& result : run.results()) {
      if (!result.verification().passed()) continue;
      Best& entry = best[ResultKey::Of(run, result.variant())];
      ++entry.attempts;
      if (entry.result == nullptr ||
          result.stats().median_ms() < entry.result->stats().median_ms()) {
        entry.run = &run;
        entry.result = &result;
      }
    }
  }
  std::vector<std::pair<ResultKey, Best>> sorted(best.begin(), best.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (const std::optional<bool> before = GroupBefore(a.first, b.first)) return *before;
    return a.second.result->stats().median_ms() < b.second.result->stats().median_ms();
  });
  Table table{{"learner", "op", "problem", "dtype", "variant", "median_ms", "throughput", "unit",
               "percent_of_ceiling", "samples", "attempts", "run_id", "accepted_unix_ms"}};
  table.truncated = runs.truncated;
  for (const auto& [key, entry] : sorted) {
    const v1::VariantResult& result = *entry.result;
    table.rows.push_back({key.learner, key.op, key.problem, key.dtype, key.variant,
                          result.stats().median_ms(), result.throughput().value(),
                          result.throughput().unit(), PercentOfCeiling(result.throughput()),
                          static_cast<int64_t>(result.stats().samples()), entry.attempts,
                          entry.run->run_id(), entry.run->accepted_unix_ms()});
  }
  return table;
}

Table SpeedupsTable(const RunSet& runs) {
  struct Best {
    const v1::RunRecord* run = nullptr;
    const v1::Speedup* speedup = nullptr;
  };
  std::map<ResultKey, Best> best;
  for (const v1::RunRecord& run : runs.runs) {
    if (run.status() != v1::RUN_STATUS_OK) continue;
    for (const v1::Speedup& speedup : run.summary().speedups()) {
      Best& entry = best[ResultKey::Of(run, speedup.variant(), speedup.baseline())];
      if (entry.speedup == nullptr || speedup.speedup() > entry.speedup->speedup()) {
        entry.run = &run;
        entry.speedup = &speedup;
      }
    }
  }
  std::vector<std::pair<ResultKey, Best>> sorted(best.begin(), best.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (const std::optional<bool> before = GroupBefore(a.first, b.first)) return *before;
    return a.second.speedup->speedup() > b.second.speedup->speedup();
  });
  Table table{{"learner", "op", "problem", "dtype", "variant", "baseline", "speedup", "ci_low",
               "ci_high", "ci_confidence", "rounds", "verdict", "run_id"}};
  table.truncated = runs.truncated;
  for (const auto& [key, entry] : sorted) {
    const v1::Speedup& speedup = *entry.speedup;
    table.rows.push_back({key.learner, key.op, key.problem, key.dtype, key.variant, key.baseline,
                          speedup.speedup(), speedup.ci_low(), speedup.ci_high(),
                          speedup.ci_confidence(), int64_t(speedup.rounds()),
                          VerdictName(speedup.verdict()), entry.run->run_id()});
  }
  return table;
}

Table ThroughputPointsTable(const RunSet& runs) {
  Table table{{"learner", "op", "problem", "dtype", "variant", "work", "work_unit", "throughput",
               "unit", "ceiling", "percent_of_ceiling", "run_id"}};
  table.truncated = runs.truncated;
  for (auto run = runs.runs.rbegin(); run != runs.runs.rend(); ++run) {
    if (!Completed(*run)) continue;
    for (const v1::VariantResult& result : run->results()) {
      if (!result.verification().passed()) continue;
      const v1::Throughput& throughput = result.throughput();
      const double seconds = result.stats().median_ms() / 1000;
      // GB/s x s = GB; TFLOP/s x s x 1000 = GFLOP.
      const bool flops = throughput.unit() == "TFLOP/s";
      const double work = throughput.value() * seconds * (flops ? 1000 : 1);
      Cell ceiling;
      if (throughput.fraction_of_ceiling() > 0) {
        ceiling = throughput.value() / throughput.fraction_of_ceiling();
      }
      table.rows.push_back({LearnerOf(*run), run->op(), ops::DescribeProblemOf(run->request()),
                            DTypeNameOf(run->request().dtype()), result.variant(), work,
                            std::string(flops ? "GFLOP" : "GB"), throughput.value(),
                            throughput.unit(), ceiling, PercentOfCeiling(throughput),
                            run->run_id()});
    }
  }
  return table;
}

Table FailedVerificationsTable(const RunSet& runs) {
  Table table{{"learner", "run_id", "accepted_unix_ms", "op", "problem", "dtype", "variant",
               "max_abs_error", "rel_l2_error", "tolerance", "non_finite", "method"}};
  table.truncated = runs.truncated;
  for (const v1::RunRecord& run : runs.runs) {
    for (const v1::VariantResult& result : run.results()) {
      const v1::Verification& verification = result.verification();
      if (verification.passed()) continue;
      table.rows.push_back(
          {LearnerOf(run), run.run_id(), run.accepted_unix_ms(), run.op(),
           ops::DescribeProblemOf(run.request()), DTypeNameOf(run.request().dtype()),
           result.variant(), verification.max_abs_error(), verification.rel_l2_error(),
           verification.tolerance(), static_cast<int64_t>(verification.non_finite()),
           verification.method()});
    }
  }
  return table;
}

}  // namespace kbench::server::http
