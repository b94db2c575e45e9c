// RunStore::Results, the assignment tables' rows picked and counted in SQL
// (store/run_results.h), on both engines: which result is a learner's best,
// how many competed, which speedups, points and failures are listed, in
// which order, under which filter (a cohort's too); migration 13's
// backfill of the runs stored before it, and migration 14's index.
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"
#include "tests/postgres_fixture.h"
#include "tests/run_records.h"
#include "tests/run_store_fixture.h"
#include "tests/temp_dir.h"

namespace kbench::server::store {
namespace {

using ::kbench::testing::AdmittedRun;
using ::kbench::testing::TestDevice;
using ::kbench::testing::TestStarted;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Engine = ::kbench::testing::StoreEngine;

// One variant's result in a run: its median and whether it verified.
struct Result {
  std::string variant;
  double median_ms;
  bool verified = true;
};

// What a test compares of a row: (learner, run, variant, baseline, score,
// attempts), score being the median or the speedup.
using Picked = std::tuple<std::string, std::string, std::string, std::string, double, int64_t>;

class StoreResultsTest : public ::kbench::testing::RunStoreFixture {
 protected:
  // A run of `user` under `label` at `unix_ms` (attention, seq_len
  // `seq_len`) that ended `status` with `results` and, when `speedup` > 0,
  // a speedup of fused over naive.
  void Add(const std::string& run_id, const std::string& label, const std::string& user,
           int64_t unix_ms, v1::RunStatus status, const std::vector<Result>& results,
           double speedup = 0, uint32_t seq_len = 1000) {
    v1::RunRecord run = AdmittedRun(run_id, unix_ms, label, "attention", user);
    run.mutable_request()->mutable_attention()->set_seq_len(seq_len);
    ASSERT_TRUE(store_->Accept(run).ok()) << run_id;
    ASSERT_TRUE(store_->Start(run_id, TestDevice(), TestStarted(run_id), unix_ms + 1).ok());
    RunOutcome outcome;
    outcome.status = status;
    outcome.unix_ms = unix_ms + 2;
    for (const Result& r : results) {
      v1::VariantResult& result = *outcome.results.Add();
      result.set_variant(r.variant);
      result.mutable_stats()->set_median_ms(r.median_ms);
      result.mutable_stats()->set_samples(10);
      result.mutable_throughput()->set_value(100 / r.median_ms);
      result.mutable_throughput()->set_unit("TFLOP/s");
      result.mutable_verification()->set_passed(r.verified);
    }
    if (speedup > 0) {
      v1::Summary summary;
      v1::Speedup& s = *summary.add_speedups();
      s.set_variant("fused");
      s.set_baseline("naive");
      s.set_speedup(speedup);
      outcome.summary = summary;
    }
    if (status != v1::RUN_STATUS_OK && status != v1::RUN_STATUS_FAILED_VERIFICATION) {
      outcome.error = "stopped";
    }
    ASSERT_TRUE(store_->Finish(run_id, outcome).ok()) << run_id;
  }

  ResultRows Read(ResultView view, const v1::ListRunsRequest& filter) {
    absl::StatusOr<ResultRows> rows = store_->Results(view, filter);
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? *rows : ResultRows{};
  }

  std::vector<Picked> Picks(ResultView view, const std::string& label = "lab1") {
    v1::ListRunsRequest filter;
    filter.set_label(label);
    return Picks(view, filter);
  }
  std::vector<Picked> Picks(ResultView view, const v1::ListRunsRequest& filter) {
    const ResultRows rows = Read(view, filter);
    EXPECT_FALSE(rows.truncated);
    std::vector<Picked> picked;
    for (const ResultRow& row : rows.rows) {
      const bool speedup = view == ResultView::kBestSpeedups;
      picked.emplace_back(row.learner, row.run_id, row.variant, row.baseline,
                          speedup ? row.speedup.speedup() : row.result.stats().median_ms(),
                          row.attempts);
    }
    return picked;
  }

  // Two learners' runs of lab1, and runs that must not count: another
  // label, another problem, a cancelled run.
  void AddCourse() {
    Add("a1", "lab1", "ada", 1000, v1::RUN_STATUS_OK, {{"naive", 8}, {"fused", 2}}, 4.0);
    Add("a2", "lab1", "ada", 2000, v1::RUN_STATUS_FAILED_VERIFICATION,
        {{"naive", 8}, {"fused", 1, false}}, 8.0);
    Add("a3", "lab1", "ada", 3000, v1::RUN_STATUS_OK, {{"naive", 7}, {"fused", 1.5}}, 4.5);
    // Faster, but cancelled: no summary, no achievement.
    Add("a4", "lab1", "ada", 4000, v1::RUN_STATUS_CANCELLED, {{"fused", 0.5}});
    Add("b1", "lab1", "bob", 1500, v1::RUN_STATUS_OK, {{"fused", 3}});
    Add("b2", "lab1", "bob", 2500, v1::RUN_STATUS_ERROR, {{"fused", 9, false}});
    Add("c1", "lab2", "ada", 1200, v1::RUN_STATUS_OK, {{"fused", 0.25}}, 30.0);
    Add("d1", "lab1", "ada", 1700, v1::RUN_STATUS_OK, {{"fused", 5}}, 0, /*seq_len=*/2000);
  }
};

TEST_P(StoreResultsTest, BestVerifiedIsEachLearnersFastestOfCompletedRunsWithItsAttempts) {
  AddCourse();
  // Newest run first, each run's results in order. ada's fused at n=1000: a3 (1.5) beats a1 (2);
  // a2's 1 did not verify, a4's 0.5 was cancelled; 2 attempts. At n=2000, its own row.
  EXPECT_THAT(
      Picks(ResultView::kBestVerified),
      ElementsAre(Picked{"ada", "a3", "naive", "", 7, 3}, Picked{"ada", "a3", "fused", "", 1.5, 2},
                  Picked{"ada", "d1", "fused", "", 5, 1}, Picked{"bob", "b1", "fused", "", 3, 1}));
}

TEST_P(StoreResultsTest, EqualMediansGoToTheNewestRun) {
  Add("old", "lab1", "ada", 1000, v1::RUN_STATUS_OK, {{"fused", 2}});
  Add("new", "lab1", "ada", 2000, v1::RUN_STATUS_OK, {{"fused", 2}});
  Add("mid", "lab1", "ada", 1500, v1::RUN_STATUS_OK, {{"fused", 2.5}});
  EXPECT_THAT(Picks(ResultView::kBestVerified),
              ElementsAre(Picked{"ada", "new", "fused", "", 2, 3}));
}

TEST_P(StoreResultsTest, BestSpeedupsComeFromOkRunsOnly) {
  AddCourse();
  // a2's 8x was of a run whose fused did not verify.
  EXPECT_THAT(Picks(ResultView::kBestSpeedups),
              ElementsAre(Picked{"ada", "a3", "fused", "naive", 4.5, 0}));
  EXPECT_THAT(Picks(ResultView::kBestSpeedups, "lab2"),
              ElementsAre(Picked{"ada", "c1", "fused", "naive", 30, 0}));
}

TEST_P(StoreResultsTest, PointsAndFailuresListNewestRunFirstEachRunInOrder) {
  AddCourse();
  EXPECT_THAT(
      Picks(ResultView::kVerified),
      ElementsAre(Picked{"ada", "a3", "naive", "", 7, 0}, Picked{"ada", "a3", "fused", "", 1.5, 0},
                  Picked{"ada", "a2", "naive", "", 8, 0}, Picked{"ada", "d1", "fused", "", 5, 0},
                  Picked{"bob", "b1", "fused", "", 3, 0}, Picked{"ada", "a1", "naive", "", 8, 0},
                  Picked{"ada", "a1", "fused", "", 2, 0}));
  // Failures of any run, the errored one's included.
  EXPECT_THAT(
      Picks(ResultView::kFailedVerification),
      ElementsAre(Picked{"bob", "b2", "fused", "", 9, 0}, Picked{"ada", "a2", "fused", "", 1, 0}));
}

TEST_P(StoreResultsTest, TheListFiltersApplyAndBadOnesAreRefusedNamingTheField) {
  AddCourse();
  v1::ListRunsRequest bob;
  bob.set_label("lab1");
  bob.set_user("bob");
  const ResultRows rows = Read(ResultView::kBestVerified, bob);
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_EQ(rows.rows[0].run_id, "b1");
  EXPECT_EQ(rows.rows[0].problem, "batch=2 heads=4 seq_len=1000 head_dim=64 causal");
  EXPECT_EQ(rows.rows[0].dtype, v1::DTYPE_BF16);
  EXPECT_EQ(rows.rows[0].result.throughput().unit(), "TFLOP/s");

  v1::ListRunsRequest early;
  early.set_label("lab1");
  early.set_until_unix_ms(1600);
  EXPECT_EQ(Read(ResultView::kVerified, early).rows.size(), 3u);  // a1's two, b1's one

  v1::ListRunsRequest bad;
  bad.set_since_unix_ms(-1);
  absl::StatusOr<ResultRows> refused = store_->Results(ResultView::kVerified, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("since_unix_ms"));
}

// A store from before migration 13 has no run_results: the migration fills
// it from the runs' results, as Finish would have.
TEST_P(StoreResultsTest, MigrationThirteenFillsTheResultsOfRunsStoredBeforeIt) {
  AddCourse();
  const std::vector<ResultView> views = {ResultView::kBestVerified, ResultView::kBestSpeedups,
                                         ResultView::kVerified, ResultView::kFailedVerification};
  std::vector<std::vector<Picked>> before;
  for (ResultView view : views) before.push_back(Picks(view));
  RunThenReopen({"DROP TABLE run_results", "DELETE FROM schema_version WHERE version = 13"});
  for (size_t i = 0; i < views.size(); ++i) EXPECT_EQ(Picks(views[i]), before[i]) << i;
  EXPECT_EQ(before[0].size(), 4u);
}

// An instructor's tables filter to a cohort's users; migration 14 puts the
// user last in run_results_by_group, so that the ranking reads the index
// alone (taken back, the migration puts it there again).
TEST_P(StoreResultsTest, ACohortsBestResultsAreItsUsersAndTheGroupIndexHoldsTheUser) {
  AddCourse();
  RunThenReopen(
      {"INSERT INTO users (name, cohort, role, token_sha256, created_unix_ms) VALUES "
       "('bob', 'section-b', 1, 'token-bob', 0)",  // (role 1: a learner)
       "DROP INDEX run_results_by_group",
       "CREATE INDEX run_results_by_group ON run_results (label, kind, verified, learner, op, "
       "problem, dtype, variant, baseline, score, accepted_unix_ms, run_id, position, status)",
       "DELETE FROM schema_version WHERE version = 14"});
  v1::ListRunsRequest section;
  section.set_label("lab1");
  section.set_cohort("section-b");
  EXPECT_THAT(Picks(ResultView::kBestVerified, section),
              ElementsAre(Picked{"bob", "b1", "fused", "", 3, 1}));

  absl::StatusOr<std::unique_ptr<SqlDatabase>> database = OpenDatabase(spec_);
  ASSERT_TRUE(database.ok()) << database.status();
  const char* columns =
      GetParam() == Engine::kSqlite
          ? "SELECT name FROM pragma_index_info('run_results_by_group') ORDER BY seqno DESC"
          : "SELECT a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN "
            "pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[array_length("
            "i.indkey, 1) - 1] WHERE c.relname = 'run_results_by_group'";
  absl::StatusOr<std::vector<SqlRow>> last = (*database)->Query(columns, {});
  ASSERT_TRUE(last.ok()) << last.status();
  ASSERT_FALSE(last->empty());
  EXPECT_EQ(std::get<std::string>((*last)[0][0]), "user_name");
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreResultsTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const ::testing::TestParamInfo<Engine>& info) {
                           return ::kbench::testing::StoreEngineName(info.param);
                         });

}  // namespace
}  // namespace kbench::server::store
