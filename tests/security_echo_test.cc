// Status messages that repeat what a client sent quote at most
// kMaxEchoBytes of it (server/common/echo.h): a 16 KiB run id, variant
// name, user or cohort is answered with its code and a short message, and
// the connection goes on serving (a message over the client's 8 KiB of
// metadata fails the call with another code, and other calls with it).
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/common/echo.h"
#include "tests/security_server.h"

namespace kbench::testing {
namespace {

using ::testing::HasSubstr;

const std::string kHuge(16384, 'x');
constexpr size_t kShortMessage = 512;

// `status` has `code` and a message short enough for any client, naming
// the input's length.
void ExpectBoundedEcho(const grpc::Status& status, grpc::StatusCode code) {
  EXPECT_EQ(status.error_code(), code) << status.error_message().substr(0, 200);
  EXPECT_LT(status.error_message().size(), kShortMessage);
  EXPECT_THAT(status.error_message(), HasSubstr("... (16384 bytes)"));
}

TEST(SecurityEcho, QuotesAtMostItsLimitEscapedAndSaysTheLength) {
  EXPECT_EQ(server::Echo("naive"), "\"naive\"");
  EXPECT_EQ(server::Echo(std::string("a\"b\n\x80")), "\"a\\\"b\\n\\x80\"");
  EXPECT_EQ(server::Echo(std::string(9000, 'x')),
            "\"" + std::string(server::kMaxEchoBytes, 'x') + "\"... (9000 bytes)");
}

TEST(SecurityEcho, HugeInputsAtEveryRpcAreEchoedBoundedAndTheConnectionGoesOn) {
  SecurityServer server;
  ASSERT_TRUE(server.ok());
  const std::shared_ptr<grpc::Channel> channel = server.Channel();
  auto history = v1::RunHistory::NewStub(channel);
  auto kbench = v1::KernelBench::NewStub(channel);
  auto quotas = v1::Quotas::NewStub(channel);
  auto auth = v1::Auth::NewStub(channel);
  const SeededTokens& tokens = server.tokens();
  {
    v1::GetRunRequest request;
    request.set_run_id(kHuge);
    v1::RunRecord run;
    ExpectBoundedEcho(history->GetRun(SecurityServer::As(tokens.root).get(), request, &run),
                      grpc::StatusCode::NOT_FOUND);
  }
  {
    v1::ListRunsRequest request;
    request.set_user(kHuge);
    v1::ListRunsResponse page;
    ExpectBoundedEcho(history->ListRuns(SecurityServer::As(tokens.ada).get(), request, &page),
                      grpc::StatusCode::PERMISSION_DENIED);
    request.clear_user();
    request.set_cohort(kHuge);
    ExpectBoundedEcho(history->ListRuns(SecurityServer::As(tokens.grace).get(), request, &page),
                      grpc::StatusCode::PERMISSION_DENIED);
  }
  {
    v1::RunRequest request = SmallRun();
    request.clear_variants();
    request.add_variants(kHuge);
    auto context = SecurityServer::As(tokens.ada);
    auto reader = kbench->Run(context.get(), request);
    v1::RunEvent event;
    while (reader->Read(&event)) {
    }
    ExpectBoundedEcho(reader->Finish(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  {
    v1::GetQuotasRequest request;
    request.set_cohort(kHuge);
    v1::QuotaReport report;
    ExpectBoundedEcho(quotas->GetQuotas(SecurityServer::As(tokens.ada).get(), request, &report),
                      grpc::StatusCode::PERMISSION_DENIED);
  }
  {
    v1::CreateInviteRequest request;
    request.set_cohort(kHuge);
    v1::CreateInviteResponse invite;
    ExpectBoundedEcho(auth->CreateInvite(SecurityServer::As(tokens.grace).get(), request, &invite),
                      grpc::StatusCode::PERMISSION_DENIED);
    // A real invite, so that the name is what is refused (a code that is
    // not one of this server's is refused first, echoing nothing).
    v1::CreateInviteRequest real;
    real.set_cohort("fall24");
    ASSERT_TRUE(auth->CreateInvite(SecurityServer::As(tokens.grace).get(), real, &invite).ok());
    v1::LoginRequest login;
    login.set_invite_code(invite.code());
    login.set_name(kHuge);
    v1::LoginResponse token;
    ExpectBoundedEcho(auth->Login(SecurityServer::As(tokens.ada).get(), login, &token),
                      grpc::StatusCode::INVALID_ARGUMENT);
  }
  // The same connection serves every call after them.
  for (int i = 0; i < 20; ++i) {
    v1::ServerInfo info;
    const grpc::Status status =
        kbench->GetServerInfo(SecurityServer::As(tokens.ada).get(), {}, &info);
    ASSERT_TRUE(status.ok()) << i << ": " << status.error_message().substr(0, 200);
  }
}

TEST(SecurityEcho, TheDashboardEchoesParametersBoundedAsJson) {
  SecurityServer server;
  ASSERT_TRUE(server.ok());
  for (const std::string& path : std::vector<std::string>{
           "/api/runs?status=" + std::string(4000, 's'), "/api/runs?since_unix_ms=%80%FF",
           "/api/runs?format=" + std::string(4000, 'f'), "/api/nothing%80" + std::string(4000, 'p'),
           "/api/runs?%80%FF=1"}) {
    httplib::Result result = server.Get(path, server.tokens().root);
    ASSERT_TRUE(result) << path.substr(0, 40);
    EXPECT_GE(result->status, 400) << path.substr(0, 40);
    EXPECT_LT(result->status, 500) << path.substr(0, 40) << ": " << result->body;
    const nlohmann::json body = nlohmann::json::parse(result->body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << path.substr(0, 40) << ": " << result->body;
    EXPECT_LT(body.value("error", "").size(), kShortMessage) << body.dump();
  }
}

}  // namespace
}  // namespace kbench::testing
