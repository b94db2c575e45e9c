// HistoryService on a server with authentication, in-process over a
// loopback port and a SQLite store: each role reads what it may, no token
// or a revoked one is UNAUTHENTICATED, lists of others' runs are
// PERMISSION_DENIED and another's run is NOT_FOUND.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "kbench/v1/history.grpc.pb.h"
#include "server/auth/token_authenticator.h"
#include "server/front/history_service.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "tests/loopback_service.h"
#include "tests/role_stores.h"
#include "tests/temp_dir.h"

namespace kbench::server {
namespace {

using ::kbench::testing::AcceptRunsBy;
using ::kbench::testing::OpenSeededStores;
using ::kbench::testing::SeededStores;

class HistoryRolesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<SeededStores> stores = OpenSeededStores(dir_.path() + "/runs.db");
    ASSERT_TRUE(stores.ok()) << stores.status();
    stores_ = *std::move(stores);
    ASSERT_TRUE(AcceptRunsBy(*stores_.runs, {"ada", "bob", "cy", "ada"}).ok());
    authenticator_ = std::make_unique<auth::TokenAuthenticator>(*stores_.identities);
    service_ = std::make_unique<HistoryService>(*stores_.runs, authenticator_.get(),
                                                stores_.identities.get());
    server_ = std::make_unique<::kbench::testing::LoopbackService>(service_.get());
    ASSERT_TRUE(server_->ok());
    stub_ = v1::RunHistory::NewStub(server_->Channel());
  }

  void TearDown() override { server_.reset(); }

  // The users whose runs `token` lists with `request`.
  std::set<std::string> ListedUsers(const std::string& token, grpc::Status& status,
                                    const v1::ListRunsRequest& request = {}) {
    grpc::ClientContext context;
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    v1::ListRunsResponse response;
    status = stub_->ListRuns(&context, request, &response);
    std::set<std::string> users;
    for (const v1::RunRecord& run : response.runs()) users.insert(run.user());
    return users;
  }

  std::set<std::string> ExportedUsers(const std::string& token, grpc::Status& status,
                                      const v1::ListRunsRequest& request = {}) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    auto reader = stub_->ExportRuns(&context, request);
    std::set<std::string> users;
    v1::RunRecord run;
    while (reader->Read(&run)) users.insert(run.user());
    status = reader->Finish();
    return users;
  }

  grpc::Status Get(const std::string& token, const std::string& run_id) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::RunRecord run;
    return stub_->GetRun(&context, request, &run);
  }

  ::kbench::testing::TempDir dir_;
  SeededStores stores_;
  std::unique_ptr<auth::TokenAuthenticator> authenticator_;
  std::unique_ptr<HistoryService> service_;
  std::unique_ptr<::kbench::testing::LoopbackService> server_;
  std::unique_ptr<v1::RunHistory::Stub> stub_;
};

TEST_F(HistoryRolesTest, ALearnerListsAndExportsOnlyTheirOwnRuns) {
  grpc::Status status;
  EXPECT_EQ(ListedUsers(stores_.tokens.ada, status), std::set<std::string>{"ada"});
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(ExportedUsers(stores_.tokens.ada, status), std::set<std::string>{"ada"});
  EXPECT_TRUE(status.ok()) << status.error_message();
}

TEST_F(HistoryRolesTest, ALearnerAskingForAnothersRunsIsDenied) {
  grpc::Status status;
  v1::ListRunsRequest bobs;
  bobs.set_user("bob");
  EXPECT_TRUE(ListedUsers(stores_.tokens.ada, status, bobs).empty());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(status.error_message().find("user"), std::string::npos);
  EXPECT_TRUE(ExportedUsers(stores_.tokens.ada, status, bobs).empty());
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::ListRunsRequest cohort;
  cohort.set_cohort("fall24");
  ListedUsers(stores_.tokens.ada, status, cohort);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Get(stores_.tokens.ada, "run-1001").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(Get(stores_.tokens.ada, "run-1000").ok());
}

TEST_F(HistoryRolesTest, AnInstructorReadsTheirCohortOnly) {
  grpc::Status status;
  EXPECT_EQ(ListedUsers(stores_.tokens.grace, status), (std::set<std::string>{"ada", "bob"}));
  EXPECT_TRUE(status.ok()) << status.error_message();
  v1::ListRunsRequest other;
  other.set_cohort("spring25");
  ListedUsers(stores_.tokens.grace, status, other);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(Get(stores_.tokens.grace, "run-1001").ok());
  EXPECT_EQ(Get(stores_.tokens.grace, "run-1002").error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(HistoryRolesTest, AnAdminReadsEverything) {
  grpc::Status status;
  EXPECT_EQ(ListedUsers(stores_.tokens.root, status), (std::set<std::string>{"ada", "bob", "cy"}));
  EXPECT_TRUE(status.ok());
  EXPECT_TRUE(Get(stores_.tokens.root, "run-1002").ok());
}

TEST_F(HistoryRolesTest, NoTokenOrARevokedOneIsUnauthenticatedSayingHowToLogIn) {
  grpc::Status status;
  ListedUsers("", status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(status.error_message().find("kbench login"), std::string::npos);
  ASSERT_TRUE(stores_.identities->Revoke("cy").ok());
  ListedUsers(stores_.tokens.cy, status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Get(stores_.tokens.cy, "run-1002").error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

}  // namespace
}  // namespace kbench::server
