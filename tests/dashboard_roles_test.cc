// The dashboard's API on a server with authentication: every endpoint needs
// `Authorization: Bearer TOKEN` (401 without), and answers each role with
// what it may read: a learner their own runs, an instructor their cohort's,
// an admin all; a learner asking for another learner is 403. And the same
// over HTTPS, with a certificate the test makes with the openssl command.
#include <chrono>
#include <memory>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "prometheus/registry.h"
#include "server/auth/token_authenticator.h"
#include "server/front/assignment_book.h"
#include "server/http/dashboard_server.h"
#include "server/store/assignment_store.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "tests/assignment_seed.h"
#include "tests/process_helper.h"
#include "tests/role_stores.h"
#include "tests/temp_dir.h"

namespace kbench::server::http {
namespace {

using ::kbench::testing::AcceptRunsBy;
using ::kbench::testing::OpenSeededStores;
using ::kbench::testing::SeededStores;
using ::kbench::testing::SeededTokens;
using Json = nlohmann::json;

LiveState NoLiveRuns() { return LiveState(); }

class DashboardRolesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<SeededStores> stores = OpenSeededStores(dir_.path() + "/runs.db");
    ASSERT_TRUE(stores.ok()) << stores.status();
    stores_ = *std::move(stores);
    ASSERT_TRUE(AcceptRunsBy(*stores_.runs, {"ada", "bob", "cy"}).ok());
    authenticator_ = std::make_unique<auth::TokenAuthenticator>(*stores_.identities);
    // fall24's assignment lab3: ada's two counting submissions, bob's failing one.
    absl::StatusOr<std::unique_ptr<store::AssignmentStore>> assignments =
        store::OpenAssignmentStore(dir_.path() + "/runs.db");
    ASSERT_TRUE(assignments.ok()) << assignments.status();
    assignments_ = *std::move(assignments);
    ASSERT_TRUE(
        ::kbench::testing::SeedAssignment(*stores_.runs, *assignments_, "fall24", "ada", "bob")
            .ok());
    book_ = std::make_unique<AssignmentBook>(*assignments_, *stores_.runs, stores_.identities.get(),
                                             nullptr);
    absl::StatusOr<std::unique_ptr<DashboardServer>> server =
        DashboardServer::Start(*stores_.runs, NoLiveRuns, registry_,
                               {.listen = "127.0.0.1:0",
                                .authenticator = authenticator_.get(),
                                .assignments = book_.get()});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  httplib::Result Get(const std::string& path, const std::string& token) {
    httplib::Client client("127.0.0.1", server_->port());
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client.Get(path, headers);
  }

  // The learners of /api/runs as `token` sees them.
  std::set<std::string> Learners(const std::string& path, const std::string& token) {
    httplib::Result result = Get(path, token);
    EXPECT_TRUE(result);
    std::set<std::string> learners;
    if (!result) return learners;
    EXPECT_EQ(result->status, 200) << result->body;
    const Json body = Json::parse(result->body);
    for (const Json& row : body["rows"]) {
      learners.insert(row["learner"].get<std::string>());
    }
    return learners;
  }

  ::kbench::testing::TempDir dir_;
  SeededStores stores_;
  std::unique_ptr<auth::TokenAuthenticator> authenticator_;
  std::unique_ptr<store::AssignmentStore> assignments_;
  std::unique_ptr<AssignmentBook> book_;
  prometheus::Registry registry_;
  std::unique_ptr<DashboardServer> server_;
};

// The assignment endpoints answer each role as the Assignments service
// does: a learner sees their cohort's assignment, their own name and
// submissions only, and no roster; another cohort's learner finds nothing;
// the instructor sees everyone.
TEST_F(DashboardRolesTest, AssignmentsShowEachRoleWhatItMaySee) {
  const SeededTokens& t = stores_.tokens;
  const auto json = [&](const std::string& path, const std::string& token, int status) {
    httplib::Result result = Get(path, token);
    EXPECT_TRUE(result) << path;
    if (!result) return Json();
    EXPECT_EQ(result->status, status) << path << ": " << result->body;
    return Json::parse(result->body);
  };
  const std::string board = "/api/assignments/leaderboard?assignment=lab3";
  Json rows = json(board, t.ada, 200)["rows"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["learner"], "ada");
  EXPECT_EQ(rows[0]["you"], true);
  rows = json(board, t.bob, 200)["rows"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0]["learner"].is_null()) << "ada's name is hidden from bob";
  EXPECT_TRUE(rows[0]["submission_id"].is_null());
  EXPECT_EQ(rows[0]["you"], false);
  EXPECT_EQ(json(board, t.grace, 200)["rows"][0]["learner"], "ada");
  json(board, t.cy, 404);

  rows = json("/api/assignments/submissions?assignment=lab3", t.ada, 200)["rows"];
  EXPECT_EQ(rows.size(), 2u) << "ada's own only";
  EXPECT_EQ(json("/api/assignments/submissions?assignment=lab3", t.grace, 200)["rows"].size(), 3u);
  json("/api/assignments/submissions?assignment=lab3&learner=bob", t.ada, 403);
  json("/api/assignments/submission?id=sub-00000000000c", t.ada, 404);
  EXPECT_EQ(json("/api/assignments/submission?id=sub-00000000000c", t.grace,
                 200)["report"]["submission"]["user"],
            "bob");

  json("/api/assignments/roster", t.ada, 403);
  rows = json("/api/assignments/roster", t.grace, 200)["rows"];
  ASSERT_EQ(rows.size(), 2u) << "fall24's learners, not spring25's cy";
  EXPECT_EQ(rows[0]["learner"], "ada");
  EXPECT_EQ(rows[1]["learner"], "bob");
  EXPECT_EQ(rows[1]["lab3"], "failing");
  json("/api/assignments/roster?cohort=spring25", t.grace, 403);
  EXPECT_EQ(json("/api/assignments", t.cy, 200)["rows"].size(), 0u);
  json("/api/assignments/leaderboard?assignment=lab3", "", 401);
}

TEST_F(DashboardRolesTest, TheApiAndMetricsNeedATokenButThePageDoesNot) {
  for (const char* path : {"/api/runs", "/api/labels", "/api/live", "/metrics"}) {
    httplib::Result result = Get(path, "");
    ASSERT_TRUE(result) << path;
    EXPECT_EQ(result->status, 401) << path;
    EXPECT_THAT(result->body, ::testing::HasSubstr("kbench login")) << path;
    result = Get(path, "kbt_not_a_token");
    EXPECT_EQ(result->status, 401) << path;
  }
  EXPECT_EQ(Get("/", "")->status, 200);
}

TEST_F(DashboardRolesTest, LiveSaysWhoIsSignedIn) {
  httplib::Result grace = Get("/api/live", stores_.tokens.grace);
  ASSERT_TRUE(grace);
  ASSERT_EQ(grace->status, 200) << grace->body;
  EXPECT_EQ(Json::parse(grace->body)["user"], "grace");
  EXPECT_EQ(Json::parse(grace->body)["role"], "instructor");
  httplib::Result ada = Get("/api/live", stores_.tokens.ada);
  ASSERT_TRUE(ada);
  EXPECT_EQ(Json::parse(ada->body)["user"], "ada");
  EXPECT_EQ(Json::parse(ada->body)["role"], "learner");
}

TEST_F(DashboardRolesTest, EachRoleSeesWhatItMay) {
  EXPECT_EQ(Learners("/api/runs", stores_.tokens.ada), std::set<std::string>{"ada"});
  EXPECT_EQ(Learners("/api/runs", stores_.tokens.grace), (std::set<std::string>{"ada", "bob"}));
  EXPECT_EQ(Learners("/api/runs", stores_.tokens.root),
            (std::set<std::string>{"ada", "bob", "cy"}));
  EXPECT_EQ(Learners("/api/learners?label=lab1", stores_.tokens.ada), std::set<std::string>{"ada"});
  EXPECT_EQ(Learners("/api/learners?label=lab1", stores_.tokens.grace),
            (std::set<std::string>{"ada", "bob"}));
}

TEST_F(DashboardRolesTest, ALearnerAskingForAnotherIsForbidden) {
  EXPECT_EQ(Get("/api/runs?user=bob", stores_.tokens.ada)->status, 403);
  EXPECT_EQ(Get("/api/learner?learner=bob", stores_.tokens.ada)->status, 403);
  EXPECT_EQ(Get("/api/learner?learner=ada", stores_.tokens.ada)->status, 200);
  EXPECT_EQ(Get("/api/learner?learner=bob", stores_.tokens.grace)->status, 200);
}

TEST_F(DashboardRolesTest, ServesHttpsWithTheGivenCertificate) {
  using namespace std::chrono_literals;
  const std::string cert = dir_.path() + "/cert.pem";
  const std::string key = dir_.path() + "/key.pem";
  ::kbench::testing::ProcessResult made = ::kbench::testing::RunProcess(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
       cert, "-days", "1", "-subj", "/CN=localhost", "-addext",
       "subjectAltName=DNS:localhost,IP:127.0.0.1"},
      60s);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  absl::StatusOr<std::unique_ptr<DashboardServer>> https =
      DashboardServer::Start(*stores_.runs, NoLiveRuns, registry_,
                             {.listen = "127.0.0.1:0",
                              .authenticator = authenticator_.get(),
                              .tls_cert = cert,
                              .tls_key = key});
  ASSERT_TRUE(https.ok()) << https.status();
  httplib::SSLClient client("127.0.0.1", (*https)->port());
  client.set_ca_cert_path(cert.c_str());
  client.enable_server_certificate_verification(true);
  httplib::Result result =
      client.Get("/api/runs", {{"Authorization", "Bearer " + stores_.tokens.ada}});
  ASSERT_TRUE(result) << httplib::to_string(result.error());
  EXPECT_EQ(result->status, 200);
  // Plain HTTP to the HTTPS port gets no answer.
  httplib::Client plain("127.0.0.1", (*https)->port());
  plain.set_connection_timeout(2);
  plain.set_read_timeout(2);
  httplib::Result cleartext =
      plain.Get("/api/runs", {{"Authorization", "Bearer " + stores_.tokens.ada}});
  EXPECT_TRUE(!cleartext || cleartext->status != 200);

  const absl::StatusOr<std::unique_ptr<DashboardServer>> bad =
      DashboardServer::Start(*stores_.runs, NoLiveRuns, registry_,
                             {.listen = "127.0.0.1:0", .tls_cert = key, .tls_key = cert});
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status())) << bad.status();
}

}  // namespace
}  // namespace kbench::server::http
