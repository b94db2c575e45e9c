// RunStore::Tally, the dashboard's counts by label and by learner computed
// in the database, on both engines: what it counts, the learner of runs
// without a user, the filters, and migration 11's backfill of the learner
// column for runs stored before it.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"
#include "tests/postgres_fixture.h"
#include "tests/run_records.h"
#include "tests/temp_dir.h"

namespace kbench::server::store {

// Printed by gtest in a failed comparison.
void PrintTo(const RunTally& tally, std::ostream* os) {
  *os << "{" << tally.key << ": runs " << tally.runs << ", others " << tally.others << ", ok "
      << tally.ok << ", failed_verification " << tally.failed_verification << ", last "
      << tally.last_unix_ms << "}";
}

bool operator==(const RunTally& a, const RunTally& b) {
  return a.key == b.key && a.runs == b.runs && a.others == b.others && a.ok == b.ok &&
         a.failed_verification == b.failed_verification && a.last_unix_ms == b.last_unix_ms;
}

namespace {

using ::kbench::testing::AdmittedRun;
using ::kbench::testing::FullOutcome;
using ::kbench::testing::TestDevice;
using ::kbench::testing::TestStarted;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Engine = ::kbench::testing::StoreEngine;

class StoreTallyTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> spec = ::kbench::testing::FreshStoreSpec(GetParam(), dir_.path());
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *spec;
    Open();
  }

  void Open() {
    store_.reset();
    absl::StatusOr<std::unique_ptr<RunStore>> store = OpenStore(spec_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  // A run of `user` (from `peer`) under `label`, accepted at `unix_ms` and
  // left as `status`: QUEUED and REFUSED are accepted so; the others run.
  void Add(const std::string& run_id, const std::string& label, const std::string& user,
           const std::string& peer, int64_t unix_ms, v1::RunStatus status) {
    v1::RunRecord run = AdmittedRun(run_id, unix_ms, label, "attention", user);
    run.set_peer(peer);
    if (status == v1::RUN_STATUS_REFUSED) {
      run.set_status(status);
      run.set_error("refused");
    }
    ASSERT_TRUE(store_->Accept(run).ok()) << run_id;
    if (status == v1::RUN_STATUS_QUEUED || status == v1::RUN_STATUS_REFUSED) return;
    ASSERT_TRUE(store_->Start(run_id, TestDevice(), TestStarted(run_id), unix_ms + 1).ok());
    RunOutcome outcome = FullOutcome(run_id, unix_ms + 2);
    outcome.status = status;
    ASSERT_TRUE(store_->Finish(run_id, outcome).ok()) << run_id;
  }

  // The cohort of the tests below: two learners by name, one by address
  // only (two connections from one host), a label only refused runs carry
  // and runs without a label.
  void AddCohort() {
    Add("r1", "lab1", "ada", "ipv4:10.0.0.1:4000", 1000, v1::RUN_STATUS_OK);
    Add("r2", "lab1", "bob", "ipv4:10.0.0.2:4000", 2000, v1::RUN_STATUS_FAILED_VERIFICATION);
    Add("r3", "lab2", "ada", "ipv4:10.0.0.1:4001", 3000, v1::RUN_STATUS_QUEUED);
    Add("r4", "", "bob", "ipv4:10.0.0.2:4001", 1500, v1::RUN_STATUS_OK);
    Add("r5", "lab1-typo", "cy", "ipv4:10.0.0.3:4000", 4000, v1::RUN_STATUS_REFUSED);
    Add("r6", "lab2", "", "ipv4:10.0.0.7:5555", 2500, v1::RUN_STATUS_OK);
    Add("r7", "lab2", "", "ipv4:10.0.0.7:6666", 2600, v1::RUN_STATUS_ERROR);
    Add("r8", "lab2", "", "ipv6:[::1]:7777", 2400, v1::RUN_STATUS_OK);
  }

  std::vector<RunTally> Tallies(TallyBy by, const v1::ListRunsRequest& filter = {}) {
    absl::StatusOr<RunTallies> tallies = store_->Tally(by, filter);
    EXPECT_TRUE(tallies.ok()) << tallies.status();
    if (!tallies.ok()) return {};
    EXPECT_FALSE(tallies->truncated);
    return tallies->rows;
  }

  ::kbench::testing::TempDir dir_;
  std::string spec_;
  std::unique_ptr<RunStore> store_;
};

TEST_P(StoreTallyTest, ByLabelCountsRunsLearnersAndOutcomesNewestFirst) {
  AddCohort();
  // lab1-typo carries only a refused run: no assignment, no row.
  EXPECT_THAT(Tallies(TallyBy::kLabel),
              ElementsAre(RunTally{"lab2", 4, 3, 2, 0, 3000}, RunTally{"lab1", 2, 2, 1, 1, 2000},
                          RunTally{"", 1, 1, 1, 0, 1500}));
}

TEST_P(StoreTallyTest, ByLearnerNamesRunsWithoutAUserByTheirHost) {
  AddCohort();
  EXPECT_THAT(Tallies(TallyBy::kLearner),
              ElementsAre(RunTally{"cy", 1, 1, 0, 0, 4000}, RunTally{"ada", 2, 2, 1, 0, 3000},
                          RunTally{"10.0.0.7", 2, 1, 1, 0, 2600},
                          RunTally{"[::1]", 1, 1, 1, 0, 2400}, RunTally{"bob", 2, 2, 1, 1, 2000}));
}

TEST_P(StoreTallyTest, FiltersApplyAsInListAndPagesAreIgnored) {
  AddCohort();
  v1::ListRunsRequest lab1;
  lab1.set_label("lab1");
  lab1.set_page_size(1);
  EXPECT_THAT(Tallies(TallyBy::kLearner, lab1),
              ElementsAre(RunTally{"bob", 1, 1, 0, 1, 2000}, RunTally{"ada", 1, 1, 1, 0, 1000}));
  v1::ListRunsRequest ada;
  ada.set_user("ada");
  EXPECT_THAT(Tallies(TallyBy::kLabel, ada),
              ElementsAre(RunTally{"lab2", 1, 1, 0, 0, 3000}, RunTally{"lab1", 1, 1, 1, 0, 1000}));
  v1::ListRunsRequest early;
  early.set_until_unix_ms(1600);
  EXPECT_THAT(Tallies(TallyBy::kLabel, early),
              ElementsAre(RunTally{"", 1, 1, 1, 0, 1500}, RunTally{"lab1", 1, 1, 1, 0, 1000}));
  v1::ListRunsRequest bad;
  bad.set_since_unix_ms(-1);
  absl::StatusOr<RunTallies> refused = store_->Tally(TallyBy::kLabel, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("since_unix_ms"));
}

TEST_P(StoreTallyTest, AnEmptyStoreHasNoRows) {
  EXPECT_TRUE(Tallies(TallyBy::kLabel).empty());
  EXPECT_TRUE(Tallies(TallyBy::kLearner).empty());
}

// A store from before migration 11 has no learner column: the migration
// adds it and fills it, from the user or from the peer's host.
TEST_P(StoreTallyTest, MigrationElevenFillsTheLearnerOfRunsStoredBeforeIt) {
  AddCohort();
  const std::vector<RunTally> expected = Tallies(TallyBy::kLearner);
  {
    absl::StatusOr<std::unique_ptr<SqlDatabase>> database = OpenDatabase(spec_);
    ASSERT_TRUE(database.ok()) << database.status();
    for (const char* statement :
         {"DROP INDEX runs_tally_by_label", "DROP INDEX runs_tally_by_learner",
          "DROP INDEX runs_by_user_in_flight", "ALTER TABLE runs DROP COLUMN learner",
          "DELETE FROM schema_version WHERE version = 11"}) {
      absl::StatusOr<int64_t> done = (*database)->Execute(statement, {});
      ASSERT_TRUE(done.ok()) << statement << ": " << done.status();
    }
  }
  Open();
  EXPECT_EQ(Tallies(TallyBy::kLearner), expected);
  EXPECT_EQ(expected.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreTallyTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const ::testing::TestParamInfo<Engine>& info) {
                           return ::kbench::testing::StoreEngineName(info.param);
                         });

}  // namespace
}  // namespace kbench::server::store
