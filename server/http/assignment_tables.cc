#include "server/http/assignment_tables.h"

#include <algorithm>
#include <compare>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "server/http/natural_order.h"
#include "server/http/run_fields.h"

namespace kbench::server::http {
namespace {

using store::ResultRow;
using store::ResultRows;

// What makes two results comparable (all but learner).
struct GroupKey {
  std::string op;
  std::string problem;
  std::string dtype;
  std::string variant;
  // A speedup's baseline; empty for a variant's own result.
  std::string baseline;

  static GroupKey Of(const ResultRow& row) {
    return {row.op, row.problem, DTypeNameOf(row.dtype), row.variant, row.baseline};
  }
};

// Whether `a`'s table group (op, problem, dtype, variant, baseline) comes
// before `b`'s, problems in their natural order (n=2000 before n=10000);
// nullopt when they are one group.
std::optional<bool> GroupBefore(const GroupKey& a, const GroupKey& b) {
  if (a.op != b.op) return a.op < b.op;
  if (a.problem != b.problem) return NaturalLess(a.problem, b.problem);
  const auto rest = [](const GroupKey& k) { return std::tie(k.dtype, k.variant, k.baseline); };
  if (rest(a) != rest(b)) return rest(a) < rest(b);
  return std::nullopt;
}

// The rows sorted by group, then by `better` within a group, then by
// learner (so equal scores list in a stable order).
std::vector<const ResultRow*> ByGroup(const ResultRows& rows,
                                      bool (*better)(const ResultRow&, const ResultRow&)) {
  std::vector<const ResultRow*> sorted;
  for (const ResultRow& row : rows.rows) sorted.push_back(&row);
  std::stable_sort(sorted.begin(), sorted.end(), [better](const ResultRow* a, const ResultRow* b) {
    if (const std::optional<bool> before = GroupBefore(GroupKey::Of(*a), GroupKey::Of(*b))) {
      return *before;
    }
    if (better(*a, *b) != better(*b, *a)) return better(*a, *b);
    return a->learner < b->learner;
  });
  return sorted;
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

Table BestResultsTable(const ResultRows& best) {
  Table table{{"learner", "op", "problem", "dtype", "variant", "median_ms", "throughput", "unit",
               "percent_of_ceiling", "samples", "attempts", "run_id", "accepted_unix_ms"}};
  table.truncated = best.truncated;
  const auto faster = [](const ResultRow& a, const ResultRow& b) {
    return a.result.stats().median_ms() < b.result.stats().median_ms();
  };
  for (const ResultRow* row : ByGroup(best, faster)) {
    const v1::VariantResult& result = row->result;
    table.rows.push_back({row->learner, row->op, row->problem, DTypeNameOf(row->dtype),
                          row->variant, result.stats().median_ms(), result.throughput().value(),
                          result.throughput().unit(), PercentOfCeiling(result.throughput()),
                          static_cast<int64_t>(result.stats().samples()), row->attempts,
                          row->run_id, row->accepted_unix_ms});
  }
  return table;
}

Table SpeedupsTable(const ResultRows& best) {
  Table table{{"learner", "op", "problem", "dtype", "variant", "baseline", "speedup", "ci_low",
               "ci_high", "ci_confidence", "rounds", "verdict", "run_id"}};
  table.truncated = best.truncated;
  const auto higher = [](const ResultRow& a, const ResultRow& b) {
    return a.speedup.speedup() > b.speedup.speedup();
  };
  for (const ResultRow* row : ByGroup(best, higher)) {
    const v1::Speedup& speedup = row->speedup;
    table.rows.push_back({row->learner, row->op, row->problem, DTypeNameOf(row->dtype),
                          row->variant, row->baseline, speedup.speedup(), speedup.ci_low(),
                          speedup.ci_high(), speedup.ci_confidence(), int64_t(speedup.rounds()),
                          VerdictName(speedup.verdict()), row->run_id});
  }
  return table;
}

Table ThroughputPointsTable(const ResultRows& verified) {
  Table table{{"learner", "op", "problem", "dtype", "variant", "work", "work_unit", "throughput",
               "unit", "ceiling", "percent_of_ceiling", "run_id"}};
  table.truncated = verified.truncated;
  // The store lists the newest run first, each run's results in order: the
  // oldest run first keeps that order within a run.
  std::vector<const ResultRow*> oldest_first;
  for (const ResultRow& row : verified.rows) oldest_first.push_back(&row);
  std::stable_sort(oldest_first.begin(), oldest_first.end(), [](const auto* a, const auto* b) {
    return std::tie(a->accepted_unix_ms, a->run_id) < std::tie(b->accepted_unix_ms, b->run_id);
  });
  for (const ResultRow* row : oldest_first) {
    const v1::VariantResult& result = row->result;
    const v1::Throughput& throughput = result.throughput();
    const double seconds = result.stats().median_ms() / 1000;
    // GB/s x s = GB; TFLOP/s x s x 1000 = GFLOP.
    const bool flops = throughput.unit() == "TFLOP/s";
    const double work = throughput.value() * seconds * (flops ? 1000 : 1);
    Cell ceiling;
    if (throughput.fraction_of_ceiling() > 0) {
      ceiling = throughput.value() / throughput.fraction_of_ceiling();
    }
    table.rows.push_back({row->learner, row->op, row->problem, DTypeNameOf(row->dtype),
                          row->variant, work, std::string(flops ? "GFLOP" : "GB"),
                          throughput.value(), throughput.unit(), ceiling,
                          PercentOfCeiling(throughput), row->run_id});
  }
  return table;
}

Table FailedVerificationsTable(const ResultRows& failed) {
  Table table{{"learner", "run_id", "accepted_unix_ms", "op", "problem", "dtype", "variant",
               "max_abs_error", "rel_l2_error", "tolerance", "non_finite", "method"}};
  table.truncated = failed.truncated;
  for (const ResultRow& row : failed.rows) {
    const v1::Verification& verification = row.result.verification();
    table.rows.push_back({row.learner, row.run_id, row.accepted_unix_ms, row.op, row.problem,
                          DTypeNameOf(row.dtype), row.variant, verification.max_abs_error(),
                          verification.rel_l2_error(), verification.tolerance(),
                          static_cast<int64_t>(verification.non_finite()), verification.method()});
  }
  return table;
}

}  // namespace kbench::server::http
