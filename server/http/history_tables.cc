#include "server/http/history_tables.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "proto/ops/registry.h"
#include "server/http/run_fields.h"
#include "server/run/run_status.h"

namespace kbench::server::http {
namespace {

// One row per tally, in the store's order: name, runs, others, ok,
// failed_verification, last_unix_ms.
Table TallyTable(std::string name, std::string others, const store::RunTallies& tallies) {
  Table table{
      {std::move(name), "runs", std::move(others), "ok", "failed_verification", "last_unix_ms"}};
  table.truncated = tallies.truncated;
  for (const store::RunTally& tally : tallies.rows) {
    table.rows.push_back({tally.key, tally.runs, tally.others, tally.ok, tally.failed_verification,
                          tally.last_unix_ms});
  }
  return table;
}

}  // namespace

Table LabelsTable(const store::RunTallies& by_label) {
  return TallyTable("label", "learners", by_label);
}

Table LearnersTable(const store::RunTallies& by_learner) {
  return TallyTable("learner", "labels", by_learner);
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
                                     proto::ops::DescribeProblemOf(run->request()),
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
                          proto::ops::DescribeProblemOf(run.request()),
                          DTypeNameOf(run.request().dtype()), RunStatusName(run.status()),
                          run.error(), run.accepted_unix_ms(), run.started_unix_ms(),
                          run.ended_unix_ms(), run.device().name(), run.device().backend()});
  }
  return table;
}

}  // namespace kbench::server::http
