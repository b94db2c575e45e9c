// Who may learn what through the gRPC services and the store (issue 37):
// another's run reads as an unknown one (ids cannot be probed), clients'
// addresses reach admins only, fault injection is for admins, and the
// SQLite store is its owner's alone.
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "kbench/v1/history.grpc.pb.h"
#include "server/auth/run_access.h"
#include "server/auth/token_authenticator.h"
#include "server/front/history_service.h"
#include "server/store/identity_store.h"
#include "server/store/run_store.h"
#include "server/store/store_recorder.h"
#include "tests/in_process_server.h"
#include "tests/loopback_service.h"
#include "tests/role_stores.h"
#include "tests/temp_dir.h"
#include "tests/test_authenticator.h"

namespace kbench::server {
namespace {

using ::kbench::testing::AcceptRunsBy;
using ::kbench::testing::OpenSeededStores;
using ::kbench::testing::SeededStores;
using ::kbench::testing::TestAuthenticator;
using ::testing::HasSubstr;
using ::testing::Not;

class SecurityHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<SeededStores> stores = OpenSeededStores(dir_.path() + "/runs.db");
    ASSERT_TRUE(stores.ok()) << stores.status();
    stores_ = *std::move(stores);
    // run-1000 ada (fall24), run-1001 bob (fall24), run-1002 cy (spring25),
    // each from a client of its own address.
    ASSERT_TRUE(AcceptRunsBy(*stores_.runs, {"ada", "bob", "cy"}).ok());
    authenticator_ = std::make_unique<auth::TokenAuthenticator>(*stores_.identities);
    service_ = std::make_unique<HistoryService>(*stores_.runs, authenticator_.get(),
                                                stores_.identities.get());
    server_ = std::make_unique<::kbench::testing::LoopbackService>(service_.get());
    ASSERT_TRUE(server_->ok());
    stub_ = v1::RunHistory::NewStub(server_->Channel());
  }

  void TearDown() override { server_.reset(); }

  grpc::Status Get(const std::string& token, const std::string& run_id,
                   v1::RunRecord* run = nullptr) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::RunRecord ignored;
    return stub_->GetRun(&context, request, run != nullptr ? run : &ignored);
  }

  std::vector<v1::RunRecord> List(const std::string& token) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    v1::ListRunsResponse response;
    const grpc::Status status = stub_->ListRuns(&context, v1::ListRunsRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.runs().begin(), response.runs().end()};
  }

  std::vector<v1::RunRecord> Export(const std::string& token) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    auto reader = stub_->ExportRuns(&context, v1::ListRunsRequest());
    std::vector<v1::RunRecord> runs;
    v1::RunRecord run;
    while (reader->Read(&run)) runs.push_back(run);
    const grpc::Status status = reader->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    return runs;
  }

  ::kbench::testing::TempDir dir_;
  SeededStores stores_;
  std::unique_ptr<auth::TokenAuthenticator> authenticator_;
  std::unique_ptr<HistoryService> service_;
  std::unique_ptr<::kbench::testing::LoopbackService> server_;
  std::unique_ptr<v1::RunHistory::Stub> stub_;
};

TEST_F(SecurityHistoryTest, AnothersRunReadsAsAnUnknownOne) {
  for (const std::string& token : {stores_.tokens.ada, stores_.tokens.grace}) {
    const grpc::Status others = Get(token, "run-1002");
    const grpc::Status unknown = Get(token, "run-9999");
    EXPECT_EQ(others.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
    // The same words but for the id itself.
    std::string others_message = others.error_message();
    others_message.replace(others_message.find("run-1002"), 8, "run-9999");
    EXPECT_EQ(others_message, unknown.error_message());
  }
}

TEST_F(SecurityHistoryTest, ClientAddressesReachAdminsOnly) {
  v1::RunRecord run;
  ASSERT_TRUE(Get(stores_.tokens.root, "run-1000", &run).ok());
  ASSERT_FALSE(run.peer().empty()) << "the seeded runs carry a peer";
  for (const std::string& token : {stores_.tokens.ada, stores_.tokens.grace}) {
    ASSERT_TRUE(Get(token, "run-1000", &run).ok());
    EXPECT_EQ(run.peer(), "");
    for (const v1::RunRecord& listed : List(token)) EXPECT_EQ(listed.peer(), "") << listed.run_id();
    for (const v1::RunRecord& exported : Export(token)) {
      EXPECT_EQ(exported.peer(), "") << exported.run_id();
    }
  }
  for (const v1::RunRecord& listed : List(stores_.tokens.root)) EXPECT_NE(listed.peer(), "");
  for (const v1::RunRecord& exported : Export(stores_.tokens.root)) EXPECT_NE(exported.peer(), "");
}

TEST(SecurityMessages, NameAnInstructorWithItsArticle) {
  const identity::Principal grace{"grace", "fall24", identity::Role::kInstructor};
  const absl::Status denied = auth::CheckRunAccess(grace, "run-1", "cy", "spring25");
  EXPECT_THAT(std::string(denied.message()), HasSubstr("(an instructor sees"));
  EXPECT_THAT(std::string(denied.message()), Not(HasSubstr("a instructor")));
}

TEST(SecurityFaultInjection, IsForAdminsOnly) {
  TestAuthenticator authenticator;
  authenticator.Add("ada", "fall24", identity::Role::kLearner);
  authenticator.Add("grace", "fall24", identity::Role::kInstructor);
  authenticator.Add("root", "", identity::Role::kAdmin);
  ServiceOptions options{CpuLimits(), DefaultTiming()};
  options.enable_fault_injection = true;
  options.authenticator = &authenticator;
  TestServer server(MakeCpuDevice(), options);
  auto stub = server.Stub();
  auto run_as = [&](const std::string& user) {
    v1::RunRequest request;
    request.mutable_vector_add()->set_n(1024);
    request.mutable_timing()->set_min_samples(1);
    request.mutable_timing()->set_time_budget_ms(50);
    request.set_fault(v1::FAULT_ILLEGAL_ADDRESS);
    grpc::ClientContext context;
    TestAuthenticator::SignIn(context, user);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return ReadAll(*stub->Run(&context, request)).status;
  };
  for (const char* user : {"ada", "grace"}) {
    const grpc::Status refused = run_as(user);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << user;
    EXPECT_THAT(refused.error_message(), HasSubstr("fault injection is for admins")) << user;
  }
  EXPECT_NE(run_as("root").error_code(), grpc::StatusCode::PERMISSION_DENIED);
}

TEST(SecurityStore, TheSqliteFileIsTheOwnersAlone) {
  ::kbench::testing::TempDir dir;
  const std::string path = dir.path() + "/runs.sqlite";
  const mode_t old_umask = umask(022);
  absl::StatusOr<std::unique_ptr<store::RunStore>> store = store::OpenStore(path);
  umask(old_umask);
  ASSERT_TRUE(store.ok()) << store.status();
  struct stat file;
  ASSERT_EQ(stat(path.c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 0777, 0600);
}

}  // namespace
}  // namespace kbench::server
