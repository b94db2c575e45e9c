#include "server/store/run_results.h"

#include <algorithm>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/registry.h"
#include "server/store/list_query.h"
#include "server/store/proto_column.h"

namespace kbench::server::store {
namespace {

// run_results.kind.
constexpr int64_t kResultKind = 0;
constexpr int64_t kSpeedupKind = 1;

// What every row of one run shares.
struct RunColumns {
  std::string run_id;
  std::string label;
  std::string user_name;
  std::string learner;
  std::string op;
  int64_t status = 0;
  int64_t accepted_unix_ms = 0;
  std::string submission_id;
  std::string problem;
  int64_t dtype = 0;
};

absl::Status InsertRow(SqlDatabase& database, const RunColumns& run, int64_t kind, int64_t position,
                       const std::string& variant, const std::string& baseline, bool verified,
                       double score, const google::protobuf::Message& part) {
  return database
      .Execute(
          "INSERT INTO run_results (run_id, kind, position, label, user_name, learner, op, "
          "status, accepted_unix_ms, submission_id, problem, dtype, variant, baseline, verified, "
          "score, part) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {run.run_id, kind, position, run.label, run.user_name, run.learner, run.op, run.status,
           run.accepted_unix_ms, run.submission_id, run.problem, run.dtype, variant, baseline,
           int64_t{verified}, score, Serialized(part)})
      .status();
}

// " WHERE <filter's conditions> AND <more>", binding the filter's
// parameters first.
absl::StatusOr<ListQuery> FilterAnd(const v1::ListRunsRequest& filter, const std::string& more) {
  v1::ListRunsRequest unpaged = filter;
  unpaged.clear_page_size();
  unpaged.clear_page_token();
  KBENCH_ASSIGN_OR_RETURN(ListQuery query, BuildListQuery(unpaged));
  query.where =
      query.where.empty() ? absl::StrCat("WHERE ", more) : absl::StrCat(query.where, " AND ", more);
  return query;
}

}  // namespace

absl::StatusOr<std::string> WriteResultsOfRuns(SqlDatabase& database, const std::string& condition,
                                               std::vector<SqlValue> params, int64_t limit) {
  params.emplace_back(limit);
  KBENCH_ASSIGN_OR_RETURN(
      const std::vector<SqlRow> rows,
      database.Query(absl::StrCat("SELECT run_id, label, user_name, learner, op, status, "
                                  "accepted_unix_ms, submission_id, admission_part, end_part "
                                  "FROM runs WHERE ",
                                  condition, " ORDER BY run_id LIMIT ?"),
                     params));
  std::string last;
  for (const SqlRow& row : rows) {
    RunColumns run;
    run.run_id = std::get<std::string>(row[0]);
    run.label = std::get<std::string>(row[1]);
    run.user_name = std::get<std::string>(row[2]);
    run.learner = std::get<std::string>(row[3]);
    run.op = std::get<std::string>(row[4]);
    run.status = std::get<int64_t>(row[5]);
    run.accepted_unix_ms = std::get<int64_t>(row[6]);
    run.submission_id = std::get<std::string>(row[7]);
    last = run.run_id;
    v1::RunRecord admission;
    v1::RunRecord end;
    // A part that does not parse (RunRecord.sanitized) contributes no row.
    if (!ParseColumn(row[8], admission) || !ParseColumn(row[9], end)) continue;
    if (end.results().empty() && end.summary().speedups().empty()) continue;
    run.problem = proto::ops::DescribeProblemOf(admission.request());
    run.dtype = admission.request().dtype();
    for (int i = 0; i < end.results_size(); ++i) {
      const v1::VariantResult& result = end.results(i);
      KBENCH_RETURN_IF_ERROR(InsertRow(database, run, kResultKind, i, result.variant(), "",
                                       result.verification().passed(), result.stats().median_ms(),
                                       result));
    }
    for (int i = 0; i < end.summary().speedups_size(); ++i) {
      const v1::Speedup& speedup = end.summary().speedups(i);
      KBENCH_RETURN_IF_ERROR(InsertRow(database, run, kSpeedupKind, i, speedup.variant(),
                                       speedup.baseline(), true, speedup.speedup(), speedup));
    }
  }
  return last;
}

absl::StatusOr<ResultRows> ReadResults(SqlDatabase& database, ResultView view,
                                       const v1::ListRunsRequest& filter) {
  const std::string completed = absl::StrCat("status IN (", int{v1::RUN_STATUS_OK}, ", ",
                                             int{v1::RUN_STATUS_FAILED_VERIFICATION}, ")");
  // The columns read, in the order the rows are parsed below.
  const std::vector<std::string> columns = {"run_id", "learner", "op",       "problem",
                                            "dtype",  "variant", "baseline", "accepted_unix_ms",
                                            "part",   "kind",    "position"};
  const auto list = [&](const char* table) {
    return absl::StrJoin(columns, ", ", [&](std::string* out, const std::string& column) {
      absl::StrAppend(out, table, column);
    });
  };
  const char* group = "learner, op, problem, dtype, variant, baseline";
  std::string selection;
  bool best = false;
  switch (view) {
    case ResultView::kBestVerified:
      selection = absl::StrCat("kind = ", kResultKind, " AND verified = 1 AND ", completed);
      best = true;
      break;
    case ResultView::kBestSpeedups:
      selection = absl::StrCat("kind = ", kSpeedupKind, " AND status = ", int{v1::RUN_STATUS_OK});
      best = true;
      break;
    case ResultView::kVerified:
      selection = absl::StrCat("kind = ", kResultKind, " AND verified = 1 AND ", completed);
      break;
    case ResultView::kFailedVerification:
      selection = absl::StrCat("kind = ", kResultKind, " AND verified = 0");
      break;
  }
  KBENCH_ASSIGN_OR_RETURN(ListQuery query, FilterAnd(filter, selection));
  // The newest first; one more than the limit tells truncation.
  const char* newest_first = " ORDER BY accepted_unix_ms DESC, run_id DESC, kind, position";
  std::string sql;
  if (best) {
    // Each group's best (lowest median, highest speedup; ties: the newest)
    // ranked first, and the group's size, by window functions over the
    // columns of run_results_by_group alone, a cohort's users included (an
    // index-only scan: the rows of one label lie scattered over the
    // table); then the winners' rows.
    const char* better = view == ResultView::kBestVerified ? "score ASC" : "score DESC";
    const std::string ranked = absl::StrCat(
        "SELECT run_id, kind, position, accepted_unix_ms, ROW_NUMBER() OVER (PARTITION BY ", group,
        " ORDER BY ", better,
        ", accepted_unix_ms DESC, run_id DESC, position) AS place, COUNT(*) OVER (PARTITION BY ",
        group, ") AS attempts FROM run_results ", query.where);
    sql = absl::StrCat(
        "SELECT ", list("r."),
        ", w.attempts FROM (SELECT run_id, kind, position, accepted_unix_ms, attempts FROM (",
        ranked, ") AS ranked WHERE place = 1", newest_first,
        " LIMIT ?) AS w JOIN run_results r ON r.run_id = w.run_id AND r.kind = "
        "w.kind AND r.position = w.position ORDER BY r.accepted_unix_ms DESC, "
        "r.run_id DESC, r.kind, r.position");
  } else {
    sql = absl::StrCat("SELECT ", list(""), ", 0 FROM run_results ", query.where, newest_first,
                       " LIMIT ?");
  }
  query.params.emplace_back(static_cast<int64_t>(kMaxResultRows) + 1);
  KBENCH_ASSIGN_OR_RETURN(const std::vector<SqlRow> rows, database.Query(sql, query.params));
  ResultRows read;
  read.truncated = rows.size() > kMaxResultRows;
  for (size_t i = 0; i < rows.size() && i < kMaxResultRows; ++i) {
    const SqlRow& row = rows[i];
    ResultRow out;
    out.run_id = std::get<std::string>(row[0]);
    out.learner = std::get<std::string>(row[1]);
    out.op = std::get<std::string>(row[2]);
    out.problem = std::get<std::string>(row[3]);
    out.dtype = static_cast<v1::DType>(std::get<int64_t>(row[4]));
    out.variant = std::get<std::string>(row[5]);
    out.baseline = std::get<std::string>(row[6]);
    out.accepted_unix_ms = std::get<int64_t>(row[7]);
    if (view == ResultView::kBestVerified) out.attempts = std::get<int64_t>(row[11]);
    const bool parsed = std::get<int64_t>(row[9]) == kSpeedupKind ? ParseColumn(row[8], out.speedup)
                                                                  : ParseColumn(row[8], out.result);
    if (parsed) read.rows.push_back(std::move(out));
  }
  return read;
}

}  // namespace kbench::server::store
