// kbench_store_scale: how the results store's reads behave at a given size.
// Fills a store (SQLite file or PostgreSQL URL) to --runs runs, then times
// the reads the dashboard, the history service and the quotas make, and one
// run's writes, each --repeat times, and prints the median and the slowest.
//
// The fill: eight template runs go through the store's own API (Accept,
// Start, Finish with two variants' results), then one INSERT ... SELECT per
// chunk copies them under new ids, learners (--learners) and labels
// (--labels), one run every 10 ms of acceptance time; a cohort of some of
// lab-1's learners for an instructor's view. Before measuring,
// ANALYZE (SQLite) or VACUUM ANALYZE (PostgreSQL) brings the planner's
// statistics up to date, as the database's upkeep would. It names the runs
// and run_results tables' columns, so it follows the schema
// (server/store/migrations.cc).
// A store that already holds --runs runs or more is measured as it is.
//
// --check exits 1 unless the tallies by label count every run of the store
// and the best results count every verified result (none left out, none
// truncated): the ctest store_scale_check runs it over more runs than a
// page-reading dashboard ever read.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/common/status_macros.h"
#include "nlohmann/json.hpp"
#include "server/identity/principal.h"
#include "server/store/list_query.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"

namespace kbench::tools {
namespace {

using server::store::RunStore;
using server::store::SqlDatabase;

struct Options {
  std::string store;
  int64_t runs = 100000;
  int64_t learners = 5000;
  int64_t labels = 20;
  int repeat = 5;
  bool json = false;
  bool check = false;
};

constexpr int kTemplates = 8;
// The cohort the fill gives an instructor (Fill).
constexpr char kCohort[] = "cohort-1";
constexpr int64_t kFillChunk = 50000;
constexpr int64_t kBaseUnixMs = 1767225600000;  // 2026-01-01

std::string TemplateId(int i) { return absl::StrCat("scale-template-", i); }

// A vector add run of `user` under `label`, accepted at `unix_ms`.
v1::RunRecord ScaleRun(const std::string& run_id, const std::string& user, const std::string& label,
                       int64_t unix_ms) {
  v1::RunRecord run;
  run.set_run_id(run_id);
  run.set_user(user);
  run.set_peer("ipv4:10.0.0.1:40000");
  run.set_label(label);
  run.set_op("vector_add");
  run.set_status(v1::RUN_STATUS_QUEUED);
  run.set_accepted_unix_ms(unix_ms);
  v1::RunRequest& request = *run.mutable_request();
  request.mutable_vector_add()->set_n(1 << 24);
  request.add_variants("naive");
  request.add_variants("vectorized");
  request.set_label(label);
  return run;
}

// Accept, Start and Finish of one run, with two variants' results and, when
// they verified, a speedup of one over the other.
absl::Status WriteRun(RunStore& store, const v1::RunRecord& run, bool verified) {
  KBENCH_RETURN_IF_ERROR(store.Accept(run));
  v1::DeviceInfo device;
  device.set_name("scale device");
  device.set_backend("cpu");
  v1::Started started;
  started.set_run_id(run.run_id());
  KBENCH_RETURN_IF_ERROR(store.Start(run.run_id(), device, started, run.accepted_unix_ms() + 1));
  server::store::RunOutcome outcome;
  outcome.status = verified ? v1::RUN_STATUS_OK : v1::RUN_STATUS_FAILED_VERIFICATION;
  outcome.unix_ms = run.accepted_unix_ms() + 500;
  for (const char* variant : {"naive", "vectorized"}) {
    v1::VariantResult& result = *outcome.results.Add();
    result.set_variant(variant);
    result.mutable_stats()->set_samples(400);
    result.mutable_stats()->set_median_ms(0.05);
    result.mutable_throughput()->set_value(3700);
    result.mutable_throughput()->set_unit("GB/s");
    result.mutable_verification()->set_passed(verified);
  }
  if (verified) {
    v1::Summary summary;
    v1::Speedup& speedup = *summary.add_speedups();
    speedup.set_variant("vectorized");
    speedup.set_baseline("naive");
    speedup.set_speedup(1.25);
    outcome.summary = summary;
  }
  return store.Finish(run.run_id(), outcome);
}

absl::StatusOr<int64_t> CountRuns(SqlDatabase& database) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<server::store::SqlRow> rows,
                          database.Query("SELECT COUNT(*) FROM runs", {}));
  return std::get<int64_t>(rows[0][0]);
}

// Fills the store to options.runs runs (see the file comment).
absl::Status Fill(const Options& options, RunStore& store, SqlDatabase& database) {
  KBENCH_ASSIGN_OR_RETURN(const int64_t held, CountRuns(database));
  if (held >= options.runs) return absl::OkStatus();
  if (held != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("store: holds ", held, " runs, fewer than --runs ", options.runs,
                     "; give an empty store or one this tool filled to at least --runs"));
  }
  for (int i = 0; i < kTemplates; ++i) {
    KBENCH_RETURN_IF_ERROR(WriteRun(store,
                                    ScaleRun(TemplateId(i), absl::StrCat("learner-", i),
                                             absl::StrCat("lab-", i % options.labels), kBaseUnixMs),
                                    // lab-1 (the label measured) holds both.
                                    /*verified=*/i % 8 != 5));
  }
  for (int64_t from = kTemplates; from < options.runs; from += kFillChunk) {
    const int64_t to = std::min(options.runs, from + kFillChunk) - 1;
    const std::string learner =
        absl::StrCat("'learner-' || CAST(g.i % ", options.learners, " AS TEXT)");
    KBENCH_RETURN_IF_ERROR(
        database
            .Execute(
                absl::StrCat("WITH RECURSIVE g(i) AS (SELECT ", from,
                             " UNION ALL SELECT i + 1 FROM g ", "WHERE i < ", to, ") ",
                             "INSERT INTO runs (run_id, user_name, peer, label, op, status, error, "
                             "accepted_unix_ms, started_unix_ms, ended_unix_ms, admission_part, "
                             "start_part, end_part, submission_id, host, learner) "
                             "SELECT 'scale-' || CAST(g.i AS TEXT), ",
                             learner, ", t.peer, 'lab-' || CAST(g.i % ", options.labels,
                             " AS TEXT), t.op, t.status, t.error, ", kBaseUnixMs, " + g.i * 10, ",
                             kBaseUnixMs, " + g.i * 10 + 1, ", kBaseUnixMs,
                             " + g.i * 10 + 500, t.admission_part, t.start_part, t.end_part, '', "
                             "t.host, ",
                             learner, " FROM g JOIN runs t ON t.run_id = 'scale-template-' || ",
                             "CAST(g.i % ", kTemplates, " AS TEXT)"),
                {})
            .status());
    // Their results (store/run_results.h), as Finish writes them.
    KBENCH_RETURN_IF_ERROR(
        database
            .Execute(
                absl::StrCat(
                    "WITH RECURSIVE g(i) AS (SELECT ", from, " UNION ALL SELECT i + 1 FROM g ",
                    "WHERE i < ", to, ") ",
                    "INSERT INTO run_results (run_id, kind, position, label, user_name, learner, "
                    "op, status, accepted_unix_ms, submission_id, problem, dtype, variant, "
                    "baseline, verified, score, part) "
                    "SELECT 'scale-' || CAST(g.i AS TEXT), t.kind, t.position, 'lab-' || "
                    "CAST(g.i % ",
                    options.labels, " AS TEXT), ", learner, ", ", learner, ", t.op, t.status, ",
                    kBaseUnixMs,
                    " + g.i * 10, '', t.problem, t.dtype, t.variant, t.baseline, t.verified, "
                    "t.score, t.part FROM g JOIN run_results t ON t.run_id = 'scale-template-' "
                    "|| CAST(g.i % ",
                    kTemplates, " AS TEXT)"),
                {})
            .status());
    std::fprintf(stderr, "filled %lld of %lld runs\n", static_cast<long long>(to + 1),
                 static_cast<long long>(options.runs));
  }
  // An instructor's cohort (kCohort): every learner whose number is 1
  // modulo twice the labels, half of lab-1's learners when the labels
  // divide the learners.
  const int64_t step = 2 * options.labels;
  return database
      .Execute(absl::StrCat("WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + ", step,
                            " FROM g WHERE i + ", step, " < ", options.learners,
                            ") INSERT INTO users (name, cohort, role, token_sha256, "
                            "created_unix_ms) SELECT 'learner-' || CAST(g.i AS TEXT), '",
                            kCohort, "', ", static_cast<int>(server::identity::Role::kLearner),
                            ", 'scale-token-' || CAST(g.i AS TEXT), 0 FROM g"),
               {})
      .status();
}

// Every run matching `filter`, a page at a time, at most `cap`: what the
// dashboard's table of one learner's runs reads.
absl::StatusOr<size_t> ReadAll(RunStore& store, v1::ListRunsRequest filter, size_t cap) {
  filter.set_page_size(server::store::kMaxPageSize);
  size_t read = 0;
  while (read < cap) {
    KBENCH_ASSIGN_OR_RETURN(v1::ListRunsResponse page,
                            store.List(filter, server::store::Samples::kOmit));
    read += page.runs_size();
    if (page.next_page_token().empty()) break;
    filter.set_page_token(page.next_page_token());
  }
  return read;
}

struct Timing {
  std::string what;
  double median_ms = 0;
  double max_ms = 0;
  // What the last call returned (rows, runs), to show it did the work.
  int64_t count = 0;
};

absl::StatusOr<Timing> Time(const std::string& what, int repeat,
                            const std::function<absl::StatusOr<int64_t>()>& call) {
  std::vector<double> ms;
  Timing timing{what};
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    KBENCH_ASSIGN_OR_RETURN(timing.count, call());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  timing.median_ms = ms[ms.size() / 2];
  timing.max_ms = ms.back();
  return timing;
}

absl::StatusOr<std::vector<Timing>> Measure(const Options& options, RunStore& store) {
  using server::store::ResultView;
  using server::store::TallyBy;
  v1::ListRunsRequest all;
  v1::ListRunsRequest label;
  label.set_label("lab-1");
  v1::ListRunsRequest learner;
  learner.set_user("learner-1");
  v1::ListRunsRequest cohort_label = label;
  cohort_label.set_cohort(kCohort);
  const auto tally = [&store](TallyBy by, const v1::ListRunsRequest& filter) {
    return [&store, by, filter]() -> absl::StatusOr<int64_t> {
      KBENCH_ASSIGN_OR_RETURN(server::store::RunTallies tallies, store.Tally(by, filter));
      return static_cast<int64_t>(tallies.rows.size());
    };
  };
  const auto page = [&store](const v1::ListRunsRequest& filter) {
    return [&store, filter]() -> absl::StatusOr<int64_t> {
      KBENCH_ASSIGN_OR_RETURN(v1::ListRunsResponse response,
                              store.List(filter, server::store::Samples::kOmit));
      return static_cast<int64_t>(response.runs_size());
    };
  };
  const auto read = [&store](const v1::ListRunsRequest& filter, size_t cap) {
    return [&store, filter, cap]() -> absl::StatusOr<int64_t> {
      KBENCH_ASSIGN_OR_RETURN(size_t runs, ReadAll(store, filter, cap));
      return static_cast<int64_t>(runs);
    };
  };
  const auto results = [&store](ResultView view, const v1::ListRunsRequest& filter) {
    return [&store, view, filter]() -> absl::StatusOr<int64_t> {
      KBENCH_ASSIGN_OR_RETURN(server::store::ResultRows rows, store.Results(view, filter));
      return static_cast<int64_t>(rows.rows.size());
    };
  };
  // Each invocation's written runs have ids of their own.
  int64_t written = 0;
  const int64_t run_tag = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  std::vector<std::pair<std::string, std::function<absl::StatusOr<int64_t>()>>> views = {
      {"labels table (tally by label, all runs)", tally(TallyBy::kLabel, all)},
      {"learners table (tally by learner, all runs)", tally(TallyBy::kLearner, all)},
      {"learners of one label (tally by learner)", tally(TallyBy::kLearner, label)},
      {"history: newest page of 50", page(all)},
      {"history: one label's newest page", page(label)},
      {"history: one learner's newest page", page(learner)},
      {"one learner's runs, every page (learner table)", read(learner, 20000)},
      {"assignment: best results of one label", results(ResultView::kBestVerified, label)},
      {"assignment: best results of one label, one cohort",
       results(ResultView::kBestVerified, cohort_label)},
      {"assignment: best speedups of one label", results(ResultView::kBestSpeedups, label)},
      {"assignment: throughput points of one label (newest 20,000)",
       results(ResultView::kVerified, label)},
      {"assignment: failures of one label (newest 20,000)",
       results(ResultView::kFailedVerification, label)},
      {"quota: one learner's device time",
       [&store]() -> absl::StatusOr<int64_t> {
         KBENCH_ASSIGN_OR_RETURN(server::store::DeviceTime time,
                                 store.DeviceTimeOf("learner-1", 0));
         return static_cast<int64_t>(time.seconds);
       }},
      {"quota: one learner's runs on the other servers",
       [&store]() -> absl::StatusOr<int64_t> {
         KBENCH_ASSIGN_OR_RETURN(server::store::ActivityElsewhere activity,
                                 store.ActivityElsewhereOf("learner-1", 0));
         return activity.requests;
       }},
      {"write: accept, start and finish one run",
       [&store, &written, run_tag]() -> absl::StatusOr<int64_t> {
         const std::string id = absl::StrCat("scale-write-", run_tag, "-", written++);
         KBENCH_RETURN_IF_ERROR(WriteRun(
             store, ScaleRun(id, "learner-1", "lab-1", kBaseUnixMs - 1000 + written), true));
         return 1;
       }},
  };
  std::vector<Timing> timings;
  for (const auto& [what, call] : views) {
    KBENCH_ASSIGN_OR_RETURN(Timing timing, Time(what, options.repeat, call));
    timings.push_back(std::move(timing));
  }
  return timings;
}

// The tallies by label count every run the store holds.
absl::Status Check(RunStore& store, SqlDatabase& database) {
  KBENCH_ASSIGN_OR_RETURN(const int64_t held, CountRuns(database));
  KBENCH_ASSIGN_OR_RETURN(server::store::RunTallies tallies,
                          store.Tally(server::store::TallyBy::kLabel, {}));
  int64_t counted = 0;
  for (const server::store::RunTally& tally : tallies.rows) counted += tally.runs;
  if (tallies.truncated || counted != held) {
    return absl::InternalError(absl::StrCat("check: the labels' tallies count ", counted,
                                            " runs of the store's ", held,
                                            tallies.truncated ? " (truncated)" : ""));
  }
  std::fprintf(stderr, "check: the labels' tallies count all %lld runs\n",
               static_cast<long long>(held));
  // Each OK run of the fill has two verified results, the others none: the
  // best results' attempts count every one of them, however many runs.
  KBENCH_ASSIGN_OR_RETURN(
      const std::vector<server::store::SqlRow> ok,
      database.Query("SELECT COUNT(*) FROM runs WHERE status = ?", {int64_t{v1::RUN_STATUS_OK}}));
  KBENCH_ASSIGN_OR_RETURN(const server::store::ResultRows best,
                          store.Results(server::store::ResultView::kBestVerified, {}));
  int64_t attempts = 0;
  for (const server::store::ResultRow& row : best.rows) attempts += row.attempts;
  const int64_t verified = 2 * std::get<int64_t>(ok[0][0]);
  if (best.truncated || attempts != verified) {
    return absl::InternalError(absl::StrCat("check: the best results count ", attempts,
                                            " verified results of the store's ", verified,
                                            best.truncated ? " (truncated)" : ""));
  }
  std::fprintf(stderr, "check: the best results count all %lld verified results\n",
               static_cast<long long>(verified));
  return absl::OkStatus();
}

absl::Status Run(const Options& options) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<RunStore> store,
                          server::store::OpenStore(options.store, "scale-host"));
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<SqlDatabase> database,
                          server::store::OpenDatabase(options.store));
  KBENCH_RETURN_IF_ERROR(Fill(options, *store, *database));
  // The planner's statistics and PostgreSQL's visibility map, as the
  // database's own upkeep (autovacuum; SQLite's optimize) keeps them after
  // such growth: without the map, PostgreSQL's index-only scans read the
  // table too.
  const bool postgres = database->dialect() == server::store::SqlDialect::kPostgres;
  KBENCH_RETURN_IF_ERROR(database->Execute(postgres ? "VACUUM ANALYZE" : "ANALYZE", {}).status());
  KBENCH_ASSIGN_OR_RETURN(const int64_t held, CountRuns(*database));
  KBENCH_ASSIGN_OR_RETURN(std::vector<Timing> timings, Measure(options, *store));
  const std::string engine =
      database->dialect() == server::store::SqlDialect::kSqlite ? "sqlite" : "postgresql";
  if (options.json) {
    nlohmann::json out = {{"engine", engine},
                          {"runs", held},
                          {"learners", options.learners},
                          {"labels", options.labels},
                          {"repeat", options.repeat},
                          {"views", nlohmann::json::array()}};
    for (const Timing& timing : timings) {
      out["views"].push_back({{"view", timing.what},
                              {"median_ms", timing.median_ms},
                              {"max_ms", timing.max_ms},
                              {"count", timing.count}});
    }
    std::cout << out.dump() << "\n";
  } else {
    std::cout << absl::StrFormat("%s store, %d runs, %d learners, %d labels; %d repeats\n\n",
                                 engine, held, options.learners, options.labels, options.repeat);
    std::cout << absl::StrFormat("%-62s %10s %10s %8s\n", "view", "median ms", "max ms", "rows");
    for (const Timing& timing : timings) {
      std::cout << absl::StrFormat("%-62s %10.2f %10.2f %8d\n", timing.what, timing.median_ms,
                                   timing.max_ms, timing.count);
    }
  }
  if (options.check) KBENCH_RETURN_IF_ERROR(Check(*store, *database));
  return absl::OkStatus();
}

}  // namespace
}  // namespace kbench::tools

int main(int argc, char** argv) {
  kbench::tools::Options options;
  CLI::App app{
      "Fills a kbench results store to a size and times the reads the dashboard, the history and "
      "the quotas make at that size (see tools/store_scale/README.md)."};
  app.add_option("--store", options.store,
                 "SQLite file or postgresql:// URL: empty, or filled by this tool before")
      ->required();
  app.add_option("--runs", options.runs, "runs the store holds when measured")
      ->check(CLI::Range(int64_t{16}, int64_t{100000000}));
  app.add_option("--learners", options.learners, "distinct learners of the filled runs")
      ->check(CLI::Range(int64_t{1}, int64_t{10000000}));
  app.add_option("--labels", options.labels, "distinct labels of the filled runs")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--repeat", options.repeat, "times each view is read; the median is shown")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--json", options.json, "one JSON object instead of the table");
  app.add_flag("--check", options.check,
               "exit 1 unless the labels' tallies count every run of the store");
  CLI11_PARSE(app, argc, argv);
  const absl::Status status = kbench::tools::Run(options);
  if (!status.ok()) {
    std::cerr << "kbench_store_scale: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
