// The RunStore suite, run against both engines: SQLite (a file in a
// temporary directory) and a real PostgreSQL 15 that the test starts; its
// tallies (StoreTallyTest) on the same fixture.
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "server/store/run_store.h"
#include "server/store/sql_database.h"
#include "tests/postgres_fixture.h"
#include "tests/run_records.h"
#include "tests/run_store_fixture.h"
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

using google::protobuf::util::MessageDifferencer;
using ::kbench::testing::AdmittedRun;
using ::kbench::testing::FullOutcome;
using ::kbench::testing::TestDevice;
using ::kbench::testing::TestStarted;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Engine = ::kbench::testing::StoreEngine;

class RunStoreTest : public ::kbench::testing::RunStoreFixture {
 protected:
  // A run through its whole life; returns what Get should return.
  v1::RunRecord CompleteRun(const std::string& run_id, int64_t unix_ms) {
    v1::RunRecord expected = AdmittedRun(run_id, unix_ms);
    EXPECT_TRUE(store_->Accept(expected).ok());
    EXPECT_TRUE(store_->Start(run_id, TestDevice(), TestStarted(run_id), unix_ms + 5).ok());
    const RunOutcome outcome = FullOutcome(run_id, unix_ms + 900);
    EXPECT_TRUE(store_->Finish(run_id, outcome).ok());
    expected.set_status(v1::RUN_STATUS_OK);
    expected.set_started_unix_ms(unix_ms + 5);
    expected.set_ended_unix_ms(unix_ms + 900);
    *expected.mutable_device() = TestDevice();
    *expected.mutable_started() = TestStarted(run_id);
    *expected.mutable_results() = outcome.results;
    *expected.mutable_summary() = *outcome.summary;
    *expected.mutable_samples() = outcome.samples;
    return expected;
  }

  std::vector<std::string> ListIds(const v1::ListRunsRequest& request) {
    absl::StatusOr<v1::ListRunsResponse> page = store_->List(request, Samples::kOmit);
    EXPECT_TRUE(page.ok()) << page.status();
    std::vector<std::string> ids;
    if (page.ok()) {
      for (const v1::RunRecord& run : page->runs()) ids.push_back(run.run_id());
    }
    return ids;
  }
};

void ExpectEqual(const google::protobuf::Message& expected,
                 const google::protobuf::Message& actual) {
  std::string diff;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differencer.Compare(expected, actual)) << diff;
}

TEST_P(RunStoreTest, MigrationsRunTwiceChangeNothing) {
  ASSERT_TRUE(store_->Accept(AdmittedRun("r1", 1000)).ok());
  ASSERT_TRUE(store_->Migrate().ok());
  ASSERT_TRUE(store_->Migrate().ok());
  Open();  // migrates once more
  absl::StatusOr<v1::RunRecord> run = store_->Get("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectEqual(AdmittedRun("r1", 1000), *run);
}

TEST_P(RunStoreTest, AcceptStartFinishRoundTripsEverythingWithSamples) {
  const v1::RunRecord expected = CompleteRun("r1", 1000);
  absl::StatusOr<v1::RunRecord> run = store_->Get("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectEqual(expected, *run);
}

TEST_P(RunStoreTest, StartIsRunningAndCanBeRepeatedUntilTheEnd) {
  ASSERT_TRUE(store_->Accept(AdmittedRun("r1", 1000)).ok());
  ASSERT_TRUE(store_->Start("r1", TestDevice(), v1::Started(), 1005).ok());
  ASSERT_TRUE(store_->Start("r1", TestDevice(), TestStarted("r1"), 1005).ok());
  absl::StatusOr<v1::RunRecord> run = store_->Get("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->status(), v1::RUN_STATUS_RUNNING);
  ExpectEqual(TestStarted("r1"), run->started());
  EXPECT_TRUE(run->samples().empty());

  ASSERT_TRUE(store_->Finish("r1", FullOutcome("r1", 2000)).ok());
  EXPECT_TRUE(
      absl::IsFailedPrecondition(store_->Start("r1", TestDevice(), TestStarted("r1"), 3000)));
  EXPECT_TRUE(absl::IsFailedPrecondition(store_->Finish("r1", FullOutcome("r1", 3000))));
}

TEST_P(RunStoreTest, RefusedRunKeepsItsError) {
  v1::RunRecord refused = AdmittedRun("r1", 1000);
  refused.set_status(v1::RUN_STATUS_REFUSED);
  refused.set_error("seq_len: 70000 is over the limit of 65536");
  ASSERT_TRUE(store_->Accept(refused).ok());
  absl::StatusOr<v1::RunRecord> run = store_->Get("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectEqual(refused, *run);
}

TEST_P(RunStoreTest, RefusesBadRecordsAndSecondAccepts) {
  ASSERT_TRUE(store_->Accept(AdmittedRun("r1", 1000)).ok());
  const absl::Status twice = store_->Accept(AdmittedRun("r1", 1000));
  EXPECT_TRUE(absl::IsAlreadyExists(twice)) << twice;
  v1::RunRecord running = AdmittedRun("r2", 1000);
  running.set_status(v1::RUN_STATUS_RUNNING);
  EXPECT_TRUE(absl::IsInvalidArgument(store_->Accept(running)));
  RunOutcome queued = FullOutcome("r1", 2000);
  queued.status = v1::RUN_STATUS_QUEUED;
  EXPECT_TRUE(absl::IsInvalidArgument(store_->Finish("r1", queued)));
}

TEST_P(RunStoreTest, GetOfAnUnknownRunIsNotFoundNamingIt) {
  const absl::StatusOr<v1::RunRecord> run = store_->Get("no-such-run");
  EXPECT_TRUE(absl::IsNotFound(run.status())) << run.status();
  EXPECT_NE(run.status().message().find("no-such-run"), std::string::npos);
  const absl::Status start = store_->Start("no-such-run", TestDevice(), v1::Started(), 1);
  EXPECT_TRUE(absl::IsNotFound(start)) << start;
}

TEST_P(RunStoreTest, FiltersByLabelOpUserStatusAndTime) {
  ASSERT_TRUE(store_->Accept(AdmittedRun("a", 1000, "lab1", "attention", "ada")).ok());
  ASSERT_TRUE(store_->Accept(AdmittedRun("b", 2000, "lab1", "vector_add", "bob")).ok());
  ASSERT_TRUE(store_->Accept(AdmittedRun("c", 3000, "lab2", "attention", "bob")).ok());
  ASSERT_TRUE(store_->Accept(AdmittedRun("d", 4000, "lab2", "vector_add", "ada")).ok());
  ASSERT_TRUE(store_->Finish("c", FullOutcome("c", 3500)).ok());

  v1::ListRunsRequest request;
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"d", "c", "b", "a"}));
  request.set_label("lab1");
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"b", "a"}));
  request.Clear();
  request.set_op("attention");
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"c", "a"}));
  request.Clear();
  request.set_user("ada");
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"d", "a"}));
  request.Clear();
  request.set_status(v1::RUN_STATUS_OK);
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"c"}));
  request.Clear();
  request.set_since_unix_ms(2000);
  request.set_until_unix_ms(4000);
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"c", "b"}));
  request.Clear();
  request.set_label("lab2");
  request.set_user("bob");
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"c"}));
}

TEST_P(RunStoreTest, ListLeavesSamplesOutUnlessAsked) {
  CompleteRun("r1", 1000);
  absl::StatusOr<v1::ListRunsResponse> without = store_->List({}, Samples::kOmit);
  ASSERT_TRUE(without.ok()) << without.status();
  ASSERT_EQ(without->runs_size(), 1);
  EXPECT_EQ(without->runs(0).samples_size(), 0);
  EXPECT_EQ(without->runs(0).results_size(), 2);
  absl::StatusOr<v1::ListRunsResponse> with = store_->List({}, Samples::kInclude);
  ASSERT_TRUE(with.ok()) << with.status();
  ASSERT_EQ(with->runs_size(), 1);
  EXPECT_EQ(with->runs(0).samples_size(), 2);
}

// A run that sent `sources` as its kernels, in that order.
v1::RunRecord RunWithKernels(const std::string& run_id, int64_t unix_ms,
                             const std::vector<std::string>& sources) {
  v1::RunRecord run = AdmittedRun(run_id, unix_ms);
  for (size_t i = 0; i < sources.size(); ++i) {
    v1::KernelSource* kernel = run.mutable_request()->add_kernels();
    kernel->set_name("k" + std::to_string(i) + ".cu");
    kernel->set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
    kernel->set_entry("vector_add");
    kernel->set_source(sources[i]);
  }
  return run;
}

TEST_P(RunStoreTest, KernelSourcesComeBackWithGetAndAreStoredOnceEach) {
  const std::string add = "__global__ void vector_add() {}\n";
  const std::string other = std::string("__global__ void vector_add() { /* \0 */ }\n", 41);
  const v1::RunRecord first = RunWithKernels("r1", 1000, {add, other});
  const v1::RunRecord second = RunWithKernels("r2", 2000, {other, add});  // the same two again
  ASSERT_TRUE(store_->Accept(first).ok());
  const absl::Status again = store_->Accept(second);
  ASSERT_TRUE(again.ok()) << again;
  for (const v1::RunRecord& expected : {first, second}) {
    absl::StatusOr<v1::RunRecord> run = store_->Get(expected.run_id());
    ASSERT_TRUE(run.ok()) << run.status();
    ExpectEqual(expected, *run);
  }
  // A page leaves the sources out; the kernels' other fields stay.
  absl::StatusOr<v1::ListRunsResponse> page = store_->List({}, Samples::kOmit);
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_EQ(page->runs_size(), 2);
  ASSERT_EQ(page->runs(0).request().kernels_size(), 2);
  EXPECT_EQ(page->runs(0).request().kernels(0).name(), "k0.cu");
  EXPECT_TRUE(page->runs(0).request().kernels(0).source().empty());
  // A second accept of the same run changes nothing, its kernels included.
  EXPECT_EQ(store_->Accept(first).code(), absl::StatusCode::kAlreadyExists);
  absl::StatusOr<v1::RunRecord> kept = store_->Get("r1");
  ASSERT_TRUE(kept.ok()) << kept.status();
  ExpectEqual(first, *kept);
}

TEST_P(RunStoreTest, BadFiltersAreInvalidArgumentNamingTheField) {
  const auto refused_field = [&](const v1::ListRunsRequest& request) {
    const absl::Status status = store_->List(request, Samples::kOmit).status();
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
    return std::string(status.message());
  };
  v1::ListRunsRequest request;
  request.set_page_size(501);
  EXPECT_EQ(refused_field(request).rfind("page_size", 0), 0u);
  request.Clear();
  request.set_since_unix_ms(5000);
  request.set_until_unix_ms(5000);
  EXPECT_EQ(refused_field(request).rfind("until_unix_ms", 0), 0u);
  request.Clear();
  request.set_page_token("not a token");
  EXPECT_EQ(refused_field(request).rfind("page_token", 0), 0u);
  request.Clear();
  request.set_status(static_cast<v1::RunStatus>(42));
  EXPECT_EQ(refused_field(request).rfind("status", 0), 0u);
}

TEST_P(RunStoreTest, PagesHaveNoDuplicatesOrGapsWhileRunsAreAdded) {
  std::vector<std::string> expected;
  // Pairs of runs share their time, so the run id breaks ties across pages.
  for (int i = 0; i < 23; ++i) {
    const std::string id = absl::StrCat("run-", 100 + i);
    ASSERT_TRUE(store_->Accept(AdmittedRun(id, 1000 + i / 2)).ok());
    expected.insert(expected.begin(), id);
  }
  v1::ListRunsRequest request;
  request.set_page_size(5);
  std::vector<std::string> listed;
  int pages = 0;
  int added = 0;
  do {
    absl::StatusOr<v1::ListRunsResponse> page = store_->List(request, Samples::kOmit);
    ASSERT_TRUE(page.ok()) << page.status();
    ++pages;
    for (const v1::RunRecord& run : page->runs()) listed.push_back(run.run_id());
    // Newer runs arrive between pages; they belong before the first page.
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(store_->Accept(AdmittedRun(absl::StrCat("new-", added++), 5000)).ok());
    }
    request.set_page_token(page->next_page_token());
  } while (!request.page_token().empty());
  EXPECT_EQ(listed, expected);
  EXPECT_EQ(pages, 5);
}

TEST_P(RunStoreTest, MarkInFlightInterruptedEndsQueuedAndRunningRunsOnly) {
  ASSERT_TRUE(store_->Accept(AdmittedRun("queued", 1000)).ok());
  ASSERT_TRUE(store_->Accept(AdmittedRun("running", 1001)).ok());
  ASSERT_TRUE(store_->Start("running", TestDevice(), TestStarted("running"), 1002).ok());
  CompleteRun("done", 1003);
  v1::RunRecord refused = AdmittedRun("refused", 1004);
  refused.set_status(v1::RUN_STATUS_REFUSED);
  ASSERT_TRUE(store_->Accept(refused).ok());

  absl::StatusOr<int64_t> marked = store_->MarkInFlightInterrupted();
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 2);
  for (const char* id : {"queued", "running"}) {
    absl::StatusOr<v1::RunRecord> run = store_->Get(id);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->status(), v1::RUN_STATUS_INTERRUPTED) << id;
    EXPECT_NE(run->error().find(id), std::string::npos) << run->error();
  }
  EXPECT_EQ(store_->Get("done")->status(), v1::RUN_STATUS_OK);
  EXPECT_EQ(store_->Get("refused")->status(), v1::RUN_STATUS_REFUSED);
  marked = store_->MarkInFlightInterrupted();
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 0);
}

// Servers sharing a store: one starting up ends only its own host's runs
// in flight, never those another server is queueing or running.
TEST_P(RunStoreTest, AServerStartingUpEndsOnlyItsOwnHostsRunsInFlight) {
  absl::StatusOr<std::unique_ptr<RunStore>> a = OpenStore(spec_, "host-a");
  absl::StatusOr<std::unique_ptr<RunStore>> b = OpenStore(spec_, "host-b");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE((*a)->Accept(AdmittedRun("a-queued", 1000)).ok());
  ASSERT_TRUE((*a)->Accept(AdmittedRun("a-running", 1001)).ok());
  ASSERT_TRUE((*a)->Start("a-running", TestDevice(), TestStarted("a-running"), 1002).ok());
  ASSERT_TRUE((*b)->Accept(AdmittedRun("b-running", 1003)).ok());
  ASSERT_TRUE((*b)->Start("b-running", TestDevice(), TestStarted("b-running"), 1004).ok());

  // host-b restarts.
  absl::StatusOr<int64_t> marked = (*b)->MarkInFlightInterrupted();
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 1);
  EXPECT_EQ(store_->Get("b-running")->status(), v1::RUN_STATUS_INTERRUPTED);
  EXPECT_EQ(store_->Get("a-queued")->status(), v1::RUN_STATUS_QUEUED);
  EXPECT_EQ(store_->Get("a-running")->status(), v1::RUN_STATUS_RUNNING);

  // host-a restarts.
  marked = (*a)->MarkInFlightInterrupted();
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 2);
  EXPECT_EQ(store_->Get("a-running")->status(), v1::RUN_STATUS_INTERRUPTED);
}

// A host that died and never came back: once its lease has lapsed, another
// server ends its runs in flight; hosts within their lease, and the
// sweeping host itself, keep theirs.
TEST_P(RunStoreTest, AHostWhoseLeaseLapsedHasItsRunsEndedByAnother) {
  absl::StatusOr<std::unique_ptr<RunStore>> a = OpenStore(spec_, "host-a");
  absl::StatusOr<std::unique_ptr<RunStore>> b = OpenStore(spec_, "host-b");
  absl::StatusOr<std::unique_ptr<RunStore>> c = OpenStore(spec_, "host-c");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_TRUE((*a)->Accept(AdmittedRun("a-running", 1000)).ok());
  ASSERT_TRUE((*a)->Start("a-running", TestDevice(), TestStarted("a-running"), 1001).ok());
  ASSERT_TRUE((*b)->Accept(AdmittedRun("b-queued", 1002)).ok());
  ASSERT_TRUE((*c)->Accept(AdmittedRun("c-queued", 1003)).ok());
  ASSERT_TRUE((*a)->Heartbeat(1'000).ok());
  ASSERT_TRUE((*b)->Heartbeat(1'000).ok());  // b's own lease is old too
  ASSERT_TRUE((*c)->Heartbeat(50'000).ok());

  // At 70 s with a 60 s lease: a lapsed (1 s), c did not (50 s).
  absl::StatusOr<int64_t> marked = (*b)->MarkLapsedHostsInterrupted(70'000, 60'000);
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 1);
  absl::StatusOr<v1::RunRecord> run = store_->Get("a-running");
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_INTERRUPTED);
  EXPECT_NE(run->error().find("stopped renewing its lease"), std::string::npos) << run->error();
  EXPECT_EQ(store_->Get("b-queued")->status(), v1::RUN_STATUS_QUEUED);
  EXPECT_EQ(store_->Get("c-queued")->status(), v1::RUN_STATUS_QUEUED);

  // a's lease is forgotten: the next sweep finds nothing of it.
  marked = (*c)->MarkLapsedHostsInterrupted(71'000, 60'000);
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 1);  // b's, from c's side: b has not renewed since 1 s
  EXPECT_EQ(store_->Get("b-queued")->status(), v1::RUN_STATUS_INTERRUPTED);
  marked = (*c)->MarkLapsedHostsInterrupted(72'000, 60'000);
  ASSERT_TRUE(marked.ok()) << marked.status();
  EXPECT_EQ(*marked, 0);
}

TEST_P(RunStoreTest, LabelWithQuotesNewlinesAndUnicodeIsStoredIntact) {
  const std::string label = "it's \"lab 1\"; DROP TABLE runs; --\nline two\t\\x00 ünïcødé ✓ 🚀";
  ASSERT_TRUE(store_->Accept(AdmittedRun("r1", 1000, label)).ok());
  ASSERT_TRUE(store_->Accept(AdmittedRun("r2", 1001, "plain")).ok());
  absl::StatusOr<v1::RunRecord> run = store_->Get("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->label(), label);
  EXPECT_EQ(run->request().label(), label);
  v1::ListRunsRequest request;
  request.set_label(label);
  EXPECT_EQ(ListIds(request), (std::vector<std::string>{"r1"}));
}

TEST_P(RunStoreTest, EverythingPersistsAcrossReopen) {
  const v1::RunRecord complete = CompleteRun("r1", 1000);
  ASSERT_TRUE(store_->Accept(AdmittedRun("r2", 2000)).ok());
  Open();
  absl::StatusOr<v1::RunRecord> run = store_->Get("r1");
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectEqual(complete, *run);
  run = store_->Get("r2");
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectEqual(AdmittedRun("r2", 2000), *run);
}

TEST_P(RunStoreTest, DeviceTimeSumsAUsersRunsThatEndedInTheWindow) {
  // A run of `user` on a device from start_ms to end_ms.
  const auto ran = [&](const std::string& run_id, const std::string& user, int64_t start_ms,
                       int64_t end_ms) {
    ASSERT_TRUE(store_->Accept(AdmittedRun(run_id, start_ms - 10, "lab1", "attention", user)).ok());
    ASSERT_TRUE(store_->Start(run_id, TestDevice(), TestStarted(run_id), start_ms).ok());
    ASSERT_TRUE(store_->Finish(run_id, FullOutcome(run_id, end_ms)).ok());
  };
  ran("old", "ada", 1000, 5000);    // ended before the window
  ran("edge", "ada", 9000, 10000);  // ended as the window opens: counts whole
  ran("late", "ada", 20000, 22500);
  ran("bob's", "bob", 20000, 90000);
  ASSERT_TRUE(store_->Accept(AdmittedRun("running", 30000, "lab1", "attention", "ada")).ok());
  ASSERT_TRUE(store_->Start("running", TestDevice(), TestStarted("running"), 30001).ok());
  v1::RunRecord refused = AdmittedRun("refused", 31000, "lab1", "attention", "ada");
  refused.set_status(v1::RUN_STATUS_REFUSED);
  ASSERT_TRUE(store_->Accept(refused).ok());

  absl::StatusOr<DeviceTime> ada = store_->DeviceTimeOf("ada", 10000);
  ASSERT_TRUE(ada.ok()) << ada.status();
  EXPECT_DOUBLE_EQ(ada->seconds, 3.5);
  EXPECT_EQ(ada->oldest_end_unix_ms, 10000);
  absl::StatusOr<DeviceTime> nobody = store_->DeviceTimeOf("cyd", 0);
  ASSERT_TRUE(nobody.ok()) << nobody.status();
  EXPECT_EQ(nobody->seconds, 0);
  EXPECT_EQ(nobody->oldest_end_unix_ms, 0);
}

TEST_P(RunStoreTest, CohortQuotasAreSetReplacedAndKept) {
  absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> none = store_->CohortQuotas();
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  v1::QuotaOverrides first, second, other;
  first.set_queued_runs(2);
  second.set_queued_runs(3);
  second.set_device_seconds_per_hour(600.5);
  other.set_runs_per_minute(0);
  ASSERT_TRUE(store_->SetCohortQuotas("cohort-1", first, 1000).ok());
  ASSERT_TRUE(store_->SetCohortQuotas("cohort-2", other, 1001).ok());
  ASSERT_TRUE(store_->SetCohortQuotas("cohort-1", second, 1002).ok());
  Open();
  absl::StatusOr<std::map<std::string, v1::QuotaOverrides>> quotas = store_->CohortQuotas();
  ASSERT_TRUE(quotas.ok()) << quotas.status();
  ASSERT_EQ(quotas->size(), 2u);
  ExpectEqual(second, quotas->at("cohort-1"));
  ExpectEqual(other, quotas->at("cohort-2"));
  EXPECT_TRUE(quotas->at("cohort-2").has_runs_per_minute());
}

// PostgreSQL restarts (a crash, a failover) under a server: the store
// connects again, and nothing it is asked after the restart fails, a
// single statement or a transaction; what was written before is there.
TEST(PostgresStore, ARestartOfPostgreSQLIsSurvived) {
  absl::StatusOr<std::unique_ptr<::kbench::testing::PostgresServer>> postgres =
      ::kbench::testing::PostgresServer::Start();
  ASSERT_TRUE(postgres.ok()) << postgres.status();
  absl::StatusOr<std::string> url = (*postgres)->CreateDatabase();
  ASSERT_TRUE(url.ok()) << url.status();
  absl::StatusOr<std::unique_ptr<RunStore>> store = OpenStore(*url, "host-a");
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->Accept(AdmittedRun("before", 1000)).ok());

  ASSERT_TRUE((*postgres)->Restart().ok());
  // A statement alone (Start is one UPDATE)...
  absl::Status started = (*store)->Start("before", TestDevice(), TestStarted("before"), 1001);
  EXPECT_TRUE(started.ok()) << started;

  ASSERT_TRUE((*postgres)->Restart().ok());
  // ...and a transaction (Accept writes the run and its kernels in one).
  absl::Status accepted = (*store)->Accept(AdmittedRun("after", 1002));
  EXPECT_TRUE(accepted.ok()) << accepted;
  absl::StatusOr<v1::RunRecord> before = (*store)->Get("before");
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(before->status(), v1::RUN_STATUS_RUNNING);
  EXPECT_TRUE((*store)->Get("after").ok());
}

INSTANTIATE_TEST_SUITE_P(Engines, RunStoreTest,
                         ::testing::Values(Engine::kSqlite, Engine::kPostgres),
                         [](const ::testing::TestParamInfo<Engine>& info) {
                           return ::kbench::testing::StoreEngineName(info.param);
                         });

// RunStore::Tally, the dashboard's counts by label and by learner computed
// in the database: what it counts, the learner of runs without a user, the
// filters, and migration 11's backfill of the learner column.
class StoreTallyTest : public RunStoreTest {
 protected:
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
  RunThenReopen({"DROP INDEX runs_tally_by_label", "DROP INDEX runs_tally_by_learner",
                 "DROP INDEX runs_by_user_in_flight", "ALTER TABLE runs DROP COLUMN learner",
                 "DELETE FROM schema_version WHERE version = 11"});
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
