// The dashboard's /api/ endpoints over HTTP, against a SQLite store seeded
// with a cohort (tests/dashboard_seed.h), and the client check that keeps
// other hosts out.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "server/http/client_check.h"
#include "tests/dashboard_test_server.h"

namespace kbench::server::http {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
using Json = nlohmann::json;

class DashboardApiTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server().ok()); }

  // The server the requests go to.
  virtual testing::DashboardTestServer& server() { return server_; }

  httplib::Result Get(const std::string& path) {
    httplib::Client client("127.0.0.1", server().port());
    return client.Get(path);
  }

  // The JSON of a 200 reply.
  Json GetJson(const std::string& path) {
    httplib::Result result = Get(path);
    EXPECT_TRUE(result) << path;
    if (!result) return Json();
    EXPECT_EQ(result->status, 200) << path << ": " << result->body;
    return Json::parse(result->body);
  }

  // The JSON error of a reply that should be `status`.
  Json GetError(const std::string& path, int status) {
    httplib::Result result = Get(path);
    EXPECT_TRUE(result) << path;
    if (!result) return Json();
    EXPECT_EQ(result->status, status) << path << ": " << result->body;
    EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
    return Json::parse(result->body);
  }

  // The rows of `table` whose `column` is `value`.
  static std::vector<Json> RowsWhere(const Json& table, const std::string& column,
                                     const Json& value) {
    std::vector<Json> rows;
    for (const Json& row : table["rows"]) {
      if (row[column] == value) rows.push_back(row);
    }
    return rows;
  }

  testing::DashboardTestServer server_;
};

TEST_F(DashboardApiTest, BestResultIsTheFastestVerifiedOnePerLearnerAndVariant) {
  const Json best = GetJson("/api/assignment/best?label=lab1-attention");
  std::vector<Json> fused = RowsWhere(best, "variant", "fused");
  ASSERT_EQ(fused.size(), 3u);
  // Fastest first; bob's 0.5 ms fused result failed verification and does
  // not count, so his best is 2.0 ms.
  EXPECT_EQ(fused[0]["learner"], "ada");
  EXPECT_DOUBLE_EQ(fused[0]["median_ms"].get<double>(), 0.9);
  EXPECT_EQ(fused[0]["run_id"], "a2");
  EXPECT_EQ(fused[0]["attempts"], 2);
  EXPECT_EQ(fused[1]["learner"], "127.0.0.2");
  EXPECT_DOUBLE_EQ(fused[1]["median_ms"].get<double>(), 1.5);
  EXPECT_EQ(fused[2]["learner"], "bob");
  EXPECT_DOUBLE_EQ(fused[2]["median_ms"].get<double>(), 2.0);
  EXPECT_EQ(fused[2]["run_id"], "b2");
  // The naive result of bob's failed run verified, so it competes: 4.2 ms
  // beats his 4.3 ms of b2.
  Json naive;
  naive["rows"] = RowsWhere(best, "variant", "naive");
  const std::vector<Json> bob = RowsWhere(naive, "learner", "bob");
  ASSERT_EQ(bob.size(), 1u);
  EXPECT_EQ(bob[0]["run_id"], "b1");
  EXPECT_DOUBLE_EQ(bob[0]["median_ms"].get<double>(), 4.2);
  EXPECT_EQ(fused[0]["problem"], "batch=2 heads=4 seq_len=1000 head_dim=64 causal");
  EXPECT_EQ(fused[0]["dtype"], "bf16");
  EXPECT_EQ(fused[0]["unit"], "TFLOP/s");
  // 1.024 GFLOP in 0.9 ms against TestDevice's 612.25 TFLOP/s.
  EXPECT_NEAR(fused[0]["throughput"].get<double>(), 1.1378, 1e-3);
  EXPECT_NEAR(fused[0]["percent_of_ceiling"].get<double>(), 0.18584, 1e-4);
}

TEST_F(DashboardApiTest, BestResultsOfAnotherLabelAreItsOwn) {
  const Json best = GetJson("/api/assignment/best?label=lab2-vector-add");
  std::vector<std::string> learners;
  for (const Json& row : best["rows"]) learners.push_back(row["learner"]);
  EXPECT_THAT(learners, UnorderedElementsAre("ada", "ada", "cyd", "cyd"));
  EXPECT_EQ(best["rows"][0]["unit"], "GB/s");
}

TEST_F(DashboardApiTest, SpeedupsAreEachLearnersBestFromFullyVerifiedRuns) {
  const Json speedups = GetJson("/api/assignment/speedups?label=lab1-attention");
  std::vector<std::pair<std::string, double>> rows;
  for (const Json& row : speedups["rows"]) rows.emplace_back(row["learner"], row["speedup"]);
  // bob's 8.4x came from a run that failed verification.
  EXPECT_THAT(rows, ElementsAre(std::pair<std::string, double>("ada", 4.5),
                                std::pair<std::string, double>("127.0.0.2", 2.6),
                                std::pair<std::string, double>("bob", 2.1)));
  EXPECT_EQ(speedups["rows"][0]["verdict"], "faster");
  EXPECT_EQ(speedups["rows"][0]["baseline"], "naive");
  EXPECT_EQ(speedups["rows"][0]["ci_confidence"], 0.95);
  EXPECT_EQ(speedups["rows"][0]["rounds"], 40);
}

TEST_F(DashboardApiTest, FailedVerificationsAreListed) {
  const Json failures = GetJson("/api/assignment/failures?label=lab1-attention");
  ASSERT_EQ(failures["rows"].size(), 1u);
  const Json& row = failures["rows"][0];
  EXPECT_EQ(row["learner"], "bob");
  EXPECT_EQ(row["run_id"], "b1");
  EXPECT_EQ(row["variant"], "fused");
  EXPECT_DOUBLE_EQ(row["rel_l2_error"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(row["tolerance"].get<double>(), 1e-2);
}

TEST_F(DashboardApiTest, ThroughputPointsCarryWorkAndCeiling) {
  const Json points = GetJson("/api/assignment/throughput?label=lab1-attention");
  // Every verified result: a1, a2, b1 (naive only), b2, p1.
  EXPECT_EQ(points["rows"].size(), 9u);
  const Json& first = points["rows"][0];
  EXPECT_EQ(first["run_id"], "a1");
  EXPECT_EQ(first["work_unit"], "GFLOP");
  EXPECT_NEAR(first["work"].get<double>(), 1.024, 1e-9);
  EXPECT_NEAR(first["ceiling"].get<double>(), 612.25, 1e-6);
}

TEST_F(DashboardApiTest, CsvHasTheHeaderAndTheRowsOfTheJson) {
  httplib::Result result = Get("/api/assignment/best?label=lab1-attention&format=csv");
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200);
  EXPECT_EQ(result->get_header_value("Content-Type"), "text/csv; charset=utf-8");
  EXPECT_THAT(result->get_header_value("Content-Disposition"),
              HasSubstr("filename=\"best-lab1-attention.csv\""));
  std::vector<std::string> lines = absl::StrSplit(result->body, "\r\n", absl::SkipEmpty());
  const Json json = GetJson("/api/assignment/best?label=lab1-attention");
  ASSERT_EQ(lines.size(), json["rows"].size() + 1);
  EXPECT_EQ(lines[0],
            "learner,op,problem,dtype,variant,median_ms,throughput,unit,percent_of_ceiling,"
            "samples,attempts,run_id,accepted_unix_ms");
  EXPECT_THAT(lines, ::testing::Contains(
                         HasSubstr("ada,attention,batch=2 heads=4 seq_len=1000 head_dim=64 causal,"
                                   "bf16,fused,0.9,")));
  EXPECT_THAT(lines, ::testing::Contains(::testing::EndsWith(",a2,1700000060000")));
}

TEST_F(DashboardApiTest, FailuresCsvListsTheFailedRun) {
  httplib::Result result = Get("/api/assignment/failures?label=lab1-attention&format=csv");
  ASSERT_TRUE(result);
  std::vector<std::string> lines = absl::StrSplit(result->body, "\r\n", absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], ::testing::StartsWith("learner,run_id,accepted_unix_ms,"));
  EXPECT_THAT(lines[1], ::testing::StartsWith("bob,b1,1700000120000,attention,"));
}

TEST_F(DashboardApiTest, LabelsAndLearnersAreTallied) {
  const Json labels = GetJson("/api/labels");
  ASSERT_EQ(labels["rows"].size(), 2u) << labels.dump();  // not lab1-atention: refused only
  // Newest first.
  EXPECT_EQ(labels["rows"][0]["label"], "lab2-vector-add");
  const Json& lab1 = labels["rows"][1];
  EXPECT_EQ(lab1["label"], "lab1-attention");
  EXPECT_EQ(lab1["runs"], 6);
  EXPECT_EQ(lab1["learners"], 4);
  EXPECT_EQ(lab1["ok"], 4);
  EXPECT_EQ(lab1["failed_verification"], 1);

  const Json learners = GetJson("/api/learners?label=lab1-attention");
  std::vector<std::string> names;
  for (const Json& row : learners["rows"]) names.push_back(row["learner"]);
  EXPECT_THAT(names, UnorderedElementsAre("ada", "bob", "cyd", "127.0.0.2"));
}

TEST_F(DashboardApiTest, LearnerHistoryIsOldestFirstWithARowPerResult) {
  const Json history = GetJson("/api/learner?learner=ada");
  std::vector<std::string> rows;
  for (const Json& row : history["rows"]) {
    rows.push_back(row["run_id"].get<std::string>() + "/" + row["variant"].get<std::string>());
  }
  EXPECT_THAT(rows, ElementsAre("a1/naive", "a1/fused", "a2/naive", "a2/fused", "a3/naive",
                                "a3/vectorized"));
  // A learner of a server without authentication is known by the peer's host.
  const Json peer = GetJson("/api/learner?learner=127.0.0.2");
  ASSERT_EQ(peer["rows"].size(), 2u);
  EXPECT_EQ(peer["rows"][0]["run_id"], "p1");
  // A refused run is one row with its error and no result.
  const Json cyd = GetJson("/api/learner?learner=cyd&label=lab1-attention");
  ASSERT_EQ(cyd["rows"].size(), 1u);
  EXPECT_EQ(cyd["rows"][0]["status"], "refused");
  EXPECT_TRUE(cyd["rows"][0]["median_ms"].is_null());
  EXPECT_THAT(cyd["rows"][0]["error"].get<std::string>(), HasSubstr("seq_len"));
}

TEST_F(DashboardApiTest, RunsAreFilteredAndPaged) {
  const Json failed = GetJson("/api/runs?status=failed_verification");
  ASSERT_EQ(failed["rows"].size(), 1u);
  EXPECT_EQ(failed["rows"][0]["run_id"], "b1");

  const Json first = GetJson("/api/runs?label=lab1-attention&page_size=4");
  ASSERT_EQ(first["rows"].size(), 4u);
  EXPECT_EQ(first["rows"][0]["run_id"], "c1");  // newest first
  const std::string token = first["next_page_token"];
  ASSERT_FALSE(token.empty());
  const Json second = GetJson("/api/runs?label=lab1-attention&page_size=4&page_token=" + token);
  ASSERT_EQ(second["rows"].size(), 2u);
  EXPECT_EQ(second["rows"][1]["run_id"], "a1");
  EXPECT_EQ(second["next_page_token"], "");
}

TEST_F(DashboardApiTest, BadParametersAre400NamingTheParameter) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/api/assignment/best", "label"},
      {"/api/assignment/failures?label=", "label"},
      {"/api/assignment/best?label=lab1-attention&format=xml", "format"},
      {"/api/assignment/best?label=lab1-attention&lable=x", "lable"},
      {"/api/labels?label=lab1-attention&label=x", "label"},
      {"/api/learner", "learner"},
      {"/api/runs?status=finished", "status"},
      {"/api/runs?since_unix_ms=yesterday", "since_unix_ms"},
      {"/api/runs?since_unix_ms=2000&until_unix_ms=1000", "until_unix_ms"},
      {"/api/runs?page_size=501", "page_size"},
      {"/api/runs?page_token=not-a-token", "page_token"},
      {"/api/live?verbose=1", "verbose"},
  };
  for (const auto& [path, parameter] : cases) {
    const Json error = GetError(path, 400);
    EXPECT_EQ(error["parameter"], parameter) << path << ": " << error.dump();
    EXPECT_THAT(error["error"].get<std::string>(), HasSubstr(parameter)) << path;
  }
}

TEST_F(DashboardApiTest, UnknownEndpointIs404) {
  const Json error = GetError("/api/nothing", 404);
  EXPECT_THAT(error["error"].get<std::string>(), HasSubstr("/api/nothing"));
}

TEST_F(DashboardApiTest, LiveShowsRunningThenWaitingRunsAndDevicesWithClocks) {
  const Json live = GetJson("/api/live");
  EXPECT_EQ(live["running"], 1);
  EXPECT_EQ(live["queued"], 1);
  EXPECT_EQ(live["backend"], "cuda");
  EXPECT_EQ(live["user"], "");  // no authentication: nobody to sign in as

  const Json runs = GetJson("/api/live/runs");
  ASSERT_EQ(runs["rows"].size(), 2u);
  EXPECT_EQ(runs["rows"][0]["state"], "running");
  EXPECT_EQ(runs["rows"][0]["device"], 0);
  EXPECT_TRUE(runs["rows"][0]["position"].is_null());
  EXPECT_EQ(runs["rows"][1]["state"], "waiting");
  EXPECT_EQ(runs["rows"][1]["position"], 0);
  EXPECT_EQ(runs["rows"][1]["learner"], "bob");

  const Json devices = GetJson("/api/live/devices");
  ASSERT_EQ(devices["rows"].size(), 1u);
  EXPECT_EQ(devices["rows"][0]["name"], "NVIDIA H200");
  EXPECT_EQ(devices["rows"][0]["healthy"], true);
  EXPECT_DOUBLE_EQ(devices["rows"][0]["last_sm_clock_mhz"].get<double>(), 1980);
  // The newest run with clocks is c2, which ended 5 s after it was accepted.
  EXPECT_EQ(devices["rows"][0]["last_clock_unix_ms"], 1700000425000);
}

TEST_F(DashboardApiTest, MetricsAreServedWithTheLiveGauges) {
  httplib::Result result = Get("/metrics");
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200);
  EXPECT_THAT(result->get_header_value("Content-Type"), HasSubstr("text/plain; version=0.0.4"));
  EXPECT_THAT(result->body, HasSubstr("\nkbench_queue_depth 1\n"));
  EXPECT_THAT(result->body, HasSubstr("\nkbench_running_runs 1\n"));
  EXPECT_THAT(result->body, HasSubstr("\nkbench_device_healthy{device=\"0\"} 1\n"));
}

TEST_F(DashboardApiTest, ServesThePageAndItsEmbeddedAssets) {
  httplib::Result page = Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(page->body, HasSubstr("<script src=\"/chart.min.js\">"));
  httplib::Result chart = Get("/chart.min.js");
  ASSERT_TRUE(chart);
  EXPECT_EQ(chart->status, 200);
  EXPECT_THAT(chart->body, HasSubstr("Chart.js v3"));
}

TEST(DashboardClientCheck, ServesLoopbackClientsOnly) {
  for (const char* address : {"127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(CheckClient(address).ok()) << address;
  }
  for (const char* address : {"10.0.0.5", "192.168.1.20", "::ffff:10.0.0.5", "2001:db8::1",
                              "128.0.0.1", "", "localhost"}) {
    const absl::Status status = CheckClient(address);
    EXPECT_TRUE(absl::IsPermissionDenied(status)) << address;
    EXPECT_THAT(status.message(), HasSubstr("this machine only")) << address;
  }
}

// The assignment endpoints over the seeded assignment (assignment_seed.h),
// on a server without identities (the caller is the local admin).
class DashboardAssignmentApiTest : public DashboardApiTest {
 protected:
  testing::DashboardTestServer& server() override { return course_; }

  testing::DashboardTestServer course_{/*with_authentication=*/false,
                                       /*with_assignments=*/true};
};

TEST_F(DashboardAssignmentApiTest, TheLeaderboardRanksEachLearnersBestCountingSubmission) {
  const Json assignments = GetJson("/api/assignments");
  ASSERT_EQ(assignments["rows"].size(), 1u);
  EXPECT_EQ(assignments["rows"][0]["name"], "lab3");
  EXPECT_EQ(assignments["rows"][0]["problems"], 2);

  const Json board = GetJson("/api/assignments/leaderboard?assignment=lab3");
  ASSERT_EQ(board["rows"].size(), 1u) << "finn's only submission does not count";
  EXPECT_EQ(board["without_counting"], 1);
  const Json& eve = board["rows"][0];
  EXPECT_EQ(eve["learner"], "eve");
  EXPECT_EQ(eve["rank"], 1);
  EXPECT_EQ(eve["submission_id"], "sub-00000000000b");
  EXPECT_NEAR(eve["score_ms"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(eve["speedup_naive"].get<double>(), 5.0, 1e-9);
  EXPECT_EQ(eve["attempts"], 2);
  EXPECT_EQ(eve["devices"], "Seed GPU");
}

TEST_F(DashboardAssignmentApiTest, TheRosterIsTheGradebookAndSaysWhoIsStuckAndWhy) {
  const Json roster = GetJson("/api/assignments/roster");
  ASSERT_EQ(roster["rows"].size(), 2u);
  EXPECT_EQ(roster["rows"][0]["learner"], "eve");
  EXPECT_NEAR(roster["rows"][0]["lab3"].get<double>(), 0.4, 1e-9);
  EXPECT_EQ(roster["rows"][1]["learner"], "finn");
  EXPECT_EQ(roster["rows"][1]["lab3"], "failing");
  EXPECT_THAT(roster["details"]["finn"]["lab3"]["why_not"].get<std::string>(),
              HasSubstr("12 elements over tolerance"));

  httplib::Result csv = Get("/api/assignments/roster?format=csv");
  ASSERT_TRUE(csv);
  EXPECT_EQ(csv->status, 200);
  EXPECT_EQ(csv->body, "learner,lab3\r\neve,0.4\r\nfinn,failing\r\n");
}

TEST_F(DashboardAssignmentApiTest, ASubmissionComesWithItsSourceAndThePreviousOne) {
  const Json page = GetJson("/api/assignments/submission?id=sub-00000000000b");
  EXPECT_EQ(page["report"]["counts"], true);
  EXPECT_EQ(page["report"]["submission"]["user"], "eve");
  ASSERT_TRUE(page["previous"].is_object());
  EXPECT_EQ(page["previous"]["submission_id"], "sub-00000000000a");
  EXPECT_THAT(page["previous"]["source"].get<std::string>(), HasSubstr("takes 0.5 ms"));

  const Json first = GetJson("/api/assignments/submission?id=sub-00000000000a");
  EXPECT_TRUE(first["previous"].is_null());
  httplib::Result unknown = Get("/api/assignments/submission?id=sub-0000000000ff");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  httplib::Result bad = Get("/api/assignments/submission?id=../etc");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
}

}  // namespace
}  // namespace kbench::server::http
