// Refused requests, as a learner can send them, against the whole server
// (security_server.h): what is stored of a refusal is bounded and valid
// UTF-8, whatever the request held, and marked sanitized when it is not
// all that was sent; a row no reader could encode (an older server's) never
// fails a page of history or the dashboard; a flood of refused requests is
// itself refused at the learner's runs per minute, and is not stored.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/store/sql_database.h"
#include "tests/security_server.h"

namespace kbench::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kReplacement[] = "\xef\xbf\xbd";  // U+FFFD

// Each dashboard endpoint that lists runs answers `token` with JSON.
void ExpectDashboardReadable(const SecurityServer& server, const std::string& token) {
  for (const std::string path : {"/api/labels", "/api/runs", "/api/learners",
                                 "/api/learner?learner=ada", "/api/runs?format=csv"}) {
    httplib::Result result = server.Get(path, token);
    ASSERT_TRUE(result) << path;
    EXPECT_EQ(result->status, 200) << path << ": " << result->body;
    if (path.find("csv") == std::string::npos)
      EXPECT_FALSE(nlohmann::json::parse(result->body, nullptr, false).is_discarded())
          << path << ": " << result->body;
  }
}

// The runs the instructor grace exports, and the stream's status.
grpc::Status ExportAll(const SecurityServer& server, const std::string& token,
                       std::vector<v1::RunRecord>& runs) {
  auto stub = v1::RunHistory::NewStub(server.Channel());
  auto context = SecurityServer::As(token);
  auto reader = stub->ExportRuns(context.get(), v1::ListRunsRequest());
  v1::RunRecord run;
  while (reader->Read(&run)) runs.push_back(run);
  return reader->Finish();
}

TEST(SecurityRefusals, ALabelThatIsNotUtf8IsStoredValidAndTheCohortsHistoryStaysReadable) {
  SecurityServer server;
  ASSERT_TRUE(server.ok());
  v1::VectorAddRequest request;
  request.set_n(4096);
  request.set_label(std::string("lab\x80x"));
  const grpc::Status refused = server.RunVectorAdd(server.tokens().ada, request);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("label must be valid UTF-8"));
  ASSERT_TRUE(server.WaitForStoredRuns(1));

  for (const std::string& token : {server.tokens().grace, server.tokens().root}) {
    std::vector<v1::RunRecord> listed;
    const grpc::Status list = server.ListAll(token, listed);
    ASSERT_TRUE(list.ok()) << list.error_message();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].status(), v1::RUN_STATUS_REFUSED);
    EXPECT_EQ(listed[0].label(), std::string("lab") + kReplacement + "x");
    EXPECT_TRUE(listed[0].sanitized());
    std::vector<v1::RunRecord> exported;
    const grpc::Status exporting = ExportAll(server, token, exported);
    EXPECT_TRUE(exporting.ok()) << exporting.error_message();
    EXPECT_EQ(exported.size(), 1u);
    ExpectDashboardReadable(server, token);
  }
}

TEST(SecurityRefusals, AStoredRowThatIsNotUtf8FailsNeitherItsPageNorTheDashboard) {
  SecurityServer server;
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(AcceptRunsBy(server.runs(), {"ada", "bob"}).ok());
  // As an older server stored a refusal: raw bytes in the text columns.
  absl::StatusOr<std::unique_ptr<server::store::SqlDatabase>> database =
      server::store::OpenDatabase(server.store_path());
  ASSERT_TRUE(database.ok()) << database.status();
  ASSERT_TRUE((*database)
                  ->Execute("UPDATE runs SET label = ?, error = ? WHERE run_id = ?",
                            {std::string("lab\x80x"), std::string("bad \xff"), "run-1000"})
                  .ok());

  std::vector<v1::RunRecord> listed;
  const grpc::Status list = server.ListAll(server.tokens().grace, listed);
  ASSERT_TRUE(list.ok()) << list.error_message();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].run_id(), "run-1000");
  EXPECT_EQ(listed[1].label(), std::string("lab") + kReplacement + "x");
  EXPECT_EQ(listed[1].error(), std::string("bad ") + kReplacement);
  EXPECT_TRUE(listed[1].sanitized());
  EXPECT_FALSE(listed[0].sanitized());
  std::vector<v1::RunRecord> exported;
  EXPECT_TRUE(ExportAll(server, server.tokens().grace, exported).ok());
  EXPECT_EQ(exported.size(), 2u);
  ExpectDashboardReadable(server, server.tokens().grace);
}

TEST(SecurityRefusals, ARefusedRequestIsStoredBoundedWhateverItHeld) {
  SecurityServer server;
  ASSERT_TRUE(server.ok());
  v1::RunRequest request = SmallRun();
  request.set_label(std::string(1 << 20, 'l'));
  request.clear_variants();
  for (int i = 0; i < 100; ++i) request.add_variants(std::string(10000, 'v'));
  request.GetReflection()->MutableUnknownFields(&request)->AddLengthDelimited(
      999, std::string(1 << 20, 'u'));
  const grpc::Status refused = server.Run(server.tokens().ada, request);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(server.WaitForStoredRuns(1));

  std::vector<v1::RunRecord> listed;
  ASSERT_TRUE(server.ListAll(server.tokens().root, listed).ok());
  ASSERT_EQ(listed.size(), 1u);
  const v1::RunRecord& run = listed[0];
  EXPECT_EQ(run.status(), v1::RUN_STATUS_REFUSED);
  EXPECT_TRUE(run.sanitized());
  EXPECT_EQ(run.label(), std::string(256, 'l'));
  EXPECT_EQ(run.request().label(), std::string(256, 'l'));
  ASSERT_EQ(run.request().variants_size(), 4);
  EXPECT_EQ(run.request().variants(0), std::string(64, 'v'));
  EXPECT_TRUE(run.request().GetReflection()->GetUnknownFields(run.request()).empty());
  EXPECT_LT(run.ByteSizeLong(), 4096u);
}

TEST(SecurityRefusals, AnAdmittedRunKeepsNoFieldTheServerDoesNotKnow) {
  SecurityServer server;
  ASSERT_TRUE(server.ok());
  v1::RunRequest request = SmallRun();
  request.GetReflection()->MutableUnknownFields(&request)->AddLengthDelimited(
      999, std::string(1 << 20, 'u'));
  const grpc::Status ran = server.Run(server.tokens().ada, request);
  ASSERT_TRUE(ran.ok()) << ran.error_message();
  ASSERT_TRUE(server.WaitForStoredRuns(1));
  std::vector<v1::RunRecord> listed;
  ASSERT_TRUE(server.ListAll(server.tokens().root, listed).ok());
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_TRUE(listed[0].request().GetReflection()->GetUnknownFields(listed[0].request()).empty());
  EXPECT_FALSE(listed[0].sanitized());
  EXPECT_LT(listed[0].ByteSizeLong(), 64u * 1024);
}

TEST(SecurityRefusals, AFloodOfRefusedRequestsIsRefusedAtTheLearnersRunsPerMinute) {
  v1::QuotaLimits quotas;
  quotas.set_runs_per_minute(5);
  SecurityServer server(quotas);
  ASSERT_TRUE(server.ok());
  v1::RunRequest bad = SmallRun();
  bad.set_label(std::string(300, 'l'));
  for (int i = 0; i < 5; ++i) {
    const grpc::Status refused = server.Run(server.tokens().ada, bad);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << i;
    EXPECT_THAT(refused.error_message(), HasSubstr("label must be at most 256 bytes"));
  }
  for (const v1::RunRequest& request : {bad, SmallRun()}) {
    const grpc::Status flood = server.Run(server.tokens().ada, request);
    EXPECT_EQ(flood.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(flood.error_message(), StartsWith("quota: runs 5 per minute used"));
  }
  // Another learner, and the instructor, are not held back.
  const grpc::Status bobs = server.Run(server.tokens().bob, SmallRun());
  EXPECT_TRUE(bobs.ok()) << bobs.error_message();
  EXPECT_TRUE(server.Run(server.tokens().grace, SmallRun()).ok());

  // The store writes in order: once the instructor's run is there, so is
  // every refusal it will hold; those over the rate are not.
  ASSERT_TRUE(server.WaitForStoredRuns(7));
  std::vector<v1::RunRecord> listed;
  ASSERT_TRUE(server.ListAll(server.tokens().root, listed).ok());
  int adas = 0;
  for (const v1::RunRecord& run : listed) {
    if (run.user() != "ada") continue;
    ++adas;
    EXPECT_EQ(run.status(), v1::RUN_STATUS_REFUSED);
  }
  EXPECT_EQ(adas, 5);
  EXPECT_EQ(listed.size(), 7u);
}

}  // namespace
}  // namespace kbench::testing
