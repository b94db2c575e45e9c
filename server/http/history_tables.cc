#include "server/http/history_tables.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "proto/ops/registry.h"
#include "server/http/run_fields.h"
#include "server/run/run_status.h"

namespace kbench::server::http {
namespace {

// Counts of the runs of one label or one learner.
struct Tally {
  int64_t runs = 0;
  int64_t ok = 0;
  int64_t failed_verification = 0;
  int64_t last_unix_ms = 0;
  // The learners of a label, or the labels of a learner.
  std::set<std::string> others;

  void Count(const v1::RunRecord& run, std::string other) {
    ++runs;
    ok += run.status() == v1::RUN_STATUS_OK;
    failed_verification += run.status() == v1::RUN_STATUS_FAILED_VERIFICATION;
    last_unix_ms = std::max(last_unix_ms, run.accepted_unix_ms());
    others.insert(std::move(other));
  }
};

// One row per tally, newest first: name, runs, others, ok,
// failed_verification, last_unix_ms.
Table TallyTable(std::string name, std::string others, const std::map<std::string, Tally>& tallies,
                 bool truncated) {
  std::vector<std::pair<std::string, Tally>> sorted(tallies.begin(), tallies.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.last_unix_ms > b.second.last_unix_ms;
  });
  Table table{
      {std::move(name), "runs", std::move(others), "ok", "failed_verification", "last_unix_ms"}};
  table.truncated = truncated;
  for (const auto& [key, tally] : sorted) {
    table.rows.push_back({key, tally.runs, static_cast<int64_t>(tally.others.size()), tally.ok,
                          tally.failed_verification, tally.last_unix_ms});
  }
  return table;
}

}  // namespace

Table LabelsTable(const RunSet& runs) {
  std::map<std::string, Tally> labels;
  // A label only refused runs carry (a typo, a sweep the server could not
  // run) names no assignment.
  std::set<std::string> admitted;
  for (const v1::RunRecord& run : runs.runs) {
    labels[run.label()].Count(run, LearnerOf(run));
    if (run.status() != v1::RUN_STATUS_REFUSED) admitted.insert(run.label());
  }
  std::erase_if(labels, [&](const auto& entry) { return admitted.count(entry.first) == 0; });
  return TallyTable("label", "learners", labels, runs.truncated);
}

Table LearnersTable(const RunSet& runs) {
  std::map<std::string, Tally> learners;
  for (const v1::RunRecord& run : runs.runs) learners[LearnerOf(run)].Count(run, run.label());
  return TallyTable("learner", "labels", learners, runs.truncated);
}

Table LearnerHistoryTable(const RunSet& runs, const std::string& learner) {
  Table table{{"run_id", "accepted_unix_ms", "label", "op", "problem", "dtype", "status", "variant",
               "median_ms", "throughput", "unit", "percent_of_ceiling", "verified", "error"}};
  table.truncated = runs.truncated;
  for (auto run = runs.runs.rbegin(); run != runs.runs.rend(); ++run) {
    if (LearnerOf(*run) != learner) continue;
    const std::vector<Cell> about = {run->run_id(),
                                     run->accepted_unix_ms(),
                                     run->label(),
                                     run->op(),
                                     ops::DescribeProblemOf(run->request()),
                                     DTypeNameOf(run->request().dtype()),
                                     RunStatusName(run->status())};
    if (run->results().empty()) {
      std::vector<Cell> row = about;
      row.resize(table.columns.size() - 1);
      row.push_back(run->error());
      table.rows.push_back(std::move(row));
      continue;
    }
    for (const v1::VariantResult& result : run->results()) {
      const v1::Throughput& throughput = result.throughput();
      std::vector<Cell> row = about;
      row.insert(
          row.end(),
          {result.variant(), result.stats().median_ms(), throughput.value(), throughput.unit(),
           throughput.fraction_of_ceiling() > 0 ? Cell(throughput.fraction_of_ceiling() * 100)
                                                : Cell(),
           result.verification().passed(), run->error()});
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

Table RunsTable(const v1::ListRunsResponse& page) {
  Table table{{"run_id", "learner", "label", "op", "problem", "dtype", "status", "error",
               "accepted_unix_ms", "started_unix_ms", "ended_unix_ms", "device", "backend"}};
  for (const v1::RunRecord& run : page.runs()) {
    table.rows.push_back({run.run_id(), LearnerOf(run), run.label(), run.op(),
                          ops::DescribeProblemOf(run.request()), DTypeNameOf(run.request().dtype()),
                          RunStatusName(run.status()), run.error(), run.accepted_unix_ms(),
                          run.started_unix_ms(), run.ended_unix_ms(), run.device().name(),
                          run.device().backend()});
  }
  return table;
}

}  // namespace kbench::server::http
