// The security suite's attacks on identities (issue 37, items 5, 6, 7 and
// 9), each against a real kbench-server (CPU backend) and the kbench
// binary: --auth auto across restarts and a mistyped --store; revocation
// of a user with a running and a queued run; tokens and invite codes in
// clear text, on the server's ports and from the client; floods of made-up
// tokens and logins; invites that outlive their purpose; one connection
// holding the server's streams.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "kbench/v1/auth.grpc.pb.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "server/app/grpc_limits.h"
#include "tests/auth_process_fixture.h"
#include "tests/process_helper.h"
#include "tests/server_under_test.h"

namespace kbench::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

// A well-formed secret that no server made: kbt_ or kbi_ and 43 base64
// characters.
std::string MadeUpSecret(const std::string& prefix, int i) {
  std::string secret = prefix + std::string(43, 'A');
  const std::string digits = std::to_string(i);
  secret.replace(secret.size() - digits.size(), digits.size(), digits);
  return secret;
}

class SecurityAuth : public AuthProcessTest {
 protected:
  // A store with cohort fall24, instructor grace and learner ada.
  void SeedCohort() {
    ASSERT_EQ(Admin({"add-cohort", "fall24"}).exit_code, 0);
    grace_ = AddUser("grace", "instructor", "fall24");
    ada_ = AddUser("ada", "learner", "fall24");
  }

  static grpc::Status WhoAmI(ServerUnderTest& server, const std::string& token) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    v1::Identity identity;
    return v1::Auth::NewStub(server.channel())->WhoAmI(&context, v1::WhoAmIRequest(), &identity);
  }

  static grpc::Status Login(ServerUnderTest& server, const std::string& code,
                            const std::string& name) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    v1::LoginRequest request;
    request.set_invite_code(code);
    request.set_name(name);
    v1::LoginResponse response;
    return v1::Auth::NewStub(server.channel())->Login(&context, request, &response);
  }

  std::string grace_;
  std::string ada_;
};

TEST_F(SecurityAuth, AutoKeepsAuthenticationOnAcrossARestartOnceEveryUserIsRevoked) {
  SeedCohort();
  {
    ServerUnderTest server({"--store", store_, "--backend", "cpu"});
    ASSERT_FALSE(server.address().empty()) << server.process().err();
    EXPECT_TRUE(WhoAmI(server, ada_).ok());
    ASSERT_EQ(server.Stop(30s), 0);
  }
  ASSERT_EQ(Admin({"revoke", "grace"}).exit_code, 0);
  ASSERT_EQ(Admin({"revoke", "ada"}).exit_code, 0);
  ServerUnderTest restarted({"--store", store_, "--backend", "cpu"});
  ASSERT_FALSE(restarted.address().empty()) << restarted.process().err();
  EXPECT_THAT(restarted.process().err(), HasSubstr("auth: on (0 active users"));
  EXPECT_EQ(WhoAmI(restarted, "").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(WhoAmI(restarted, ada_).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  grpc::ClientContext context;
  v1::ServerInfo info;
  EXPECT_EQ(
      restarted.Stub()->GetServerInfo(&context, v1::GetServerInfoRequest(), &info).error_code(),
      grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(SecurityAuth, AutoDoesNotCreateAMistypedStore) {
  SeedCohort();
  const std::string typo = dir_.path() + "/rnus.db";
  ProcessResult refused = RunProcess({KBENCH_SERVER_BIN, "--store", typo, "--backend", "cpu",
                                      "--listen", "127.0.0.1:0", "--http", "off", "--insecure"},
                                     60s);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("--store " + typo + ": no store there"));
  EXPECT_THAT(refused.err, HasSubstr("--auth off"));
  EXPECT_FALSE(std::filesystem::exists(typo));
}

// One learner's runs on one device: the first running, the second queued
// behind it. Revoking the learner ends both at once.
TEST_F(SecurityAuth, RevocationEndsTheRunningAndTheQueuedRunsOfTheUser) {
  SeedCohort();
  ServerUnderTest server({"--store", store_, "--backend", "cpu", "--devices", "0"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  struct Stream {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<v1::RunEvent>> reader;
    std::vector<v1::RunEvent> events;
    bool ReadUntil(bool (v1::RunEvent::*has)() const) {
      v1::RunEvent event;
      while (reader->Read(&event)) {
        events.push_back(event);
        if ((event.*has)()) return true;
      }
      return false;
    }
  };
  Stream running;
  Stream queued;
  // One after the other, so that the first is the one that runs: a minute
  // (the longest budget) of 1 Mi elements, whose 100,000 samples (the most
  // a run takes) take longer still, so it outlasts the revocation on a
  // loaded machine too.
  for (Stream* stream : {&running, &queued}) {
    stream->context.AddMetadata("authorization", "Bearer " + ada_);
    stream->reader = stub->Run(&stream->context, VectorAdd(1 << 20, 60000));
    ASSERT_TRUE(stream->ReadUntil(stream == &running ? &v1::RunEvent::has_samples
                                                     : &v1::RunEvent::has_queued));
  }

  ASSERT_EQ(Admin({"revoke", "ada"}).exit_code, 0);
  const auto revoked = std::chrono::steady_clock::now();
  for (Stream* stream : {&running, &queued}) {
    stream->ReadUntil(&v1::RunEvent::has_summary);
    const grpc::Status status = stream->reader->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("revoked"));
    for (const v1::RunEvent& event : stream->events) EXPECT_FALSE(event.has_summary());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - revoked, 3s);
  for (const v1::RunEvent& event : queued.events) EXPECT_FALSE(event.has_started());
  EXPECT_EQ(WhoAmI(server, ada_).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // The device is free again for everyone else.
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + grace_);
  auto next = stub->Run(&context, VectorAdd(4096, 20));
  v1::RunEvent event;
  bool summary = false;
  while (next->Read(&event)) summary = summary || event.has_summary();
  EXPECT_TRUE(next->Finish().ok());
  EXPECT_TRUE(summary);
}

TEST_F(SecurityAuth, WithAuthenticationTheServerServesTheNetworkOnlyWithTls) {
  SeedCohort();
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--listen", "0.0.0.0:0", "--http", "off"},
        std::vector<std::string>{"--listen", "127.0.0.1:0", "--http", "0.0.0.0:0"}}) {
    std::vector<std::string> argv = {KBENCH_SERVER_BIN, "--store", store_, "--backend", "cpu"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ProcessResult refused = RunProcess(argv, 60s);
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_THAT(refused.err, HasSubstr("plain text"));
    EXPECT_THAT(refused.err, HasSubstr("--tls-cert"));
    EXPECT_THAT(refused.err, HasSubstr("--allow-plaintext-tokens"));
  }
  ChildProcess allowed({KBENCH_SERVER_BIN, "--store", store_, "--backend", "cpu", "--listen",
                        "0.0.0.0:0", "--http", "off", "--allow-plaintext-tokens"});
  EXPECT_TRUE(allowed.WaitForOutput("kbench-server listening on 0.0.0.0:", 60s)) << allowed.err();
}

TEST_F(SecurityAuth, TheClientSendsNoInviteCodeOrTokenInClearTextOffThisMachine) {
  ProcessResult login = Kbench("192.0.2.1:50051", "",
                               {"login", "--invite", MadeUpSecret("kbi_", 1), "--name", "ada"});
  EXPECT_EQ(login.exit_code, 2);
  EXPECT_THAT(login.err, HasSubstr("invite code"));
  EXPECT_THAT(login.err, HasSubstr("clear text"));
  for (const char* server : {"127.0.0.1.nip.io:50051", "dns:///127.0.0.1.nip.io:50051",
                             "localhost.example.org:1", "ipv4:10.0.0.1:1"}) {
    ProcessResult token = Kbench(server, "kbt_secret", {"info"});
    EXPECT_EQ(token.exit_code, 2) << server;
    EXPECT_THAT(token.err, HasSubstr("clear text")) << server;
  }
  for (const char* server :
       {"127.0.0.2:1", "localhost:1", "[::1]:1", "ipv4:127.0.0.1:1", "dns:///localhost:1"}) {
    ProcessResult loopback = Kbench(server, "kbt_secret", {"info"});
    EXPECT_EQ(loopback.exit_code, 3) << server;
    EXPECT_THAT(loopback.err, Not(HasSubstr("clear text"))) << server;
  }
}

TEST_F(SecurityAuth, AFloodOfMadeUpTokensIsCutOffWhileKnownUsersGoOn) {
  SeedCohort();
  ServerUnderTest server({"--store", store_, "--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  ASSERT_TRUE(WhoAmI(server, ada_).ok());
  int unauthenticated = 0;
  int exhausted = 0;
  for (int i = 0; i < 60; ++i) {
    const grpc::StatusCode code = WhoAmI(server, MadeUpSecret("kbt_", i)).error_code();
    unauthenticated += code == grpc::StatusCode::UNAUTHENTICATED;
    exhausted += code == grpc::StatusCode::RESOURCE_EXHAUSTED;
  }
  EXPECT_GE(unauthenticated, 30);
  EXPECT_GE(exhausted, 20);
  const grpc::Status refused = WhoAmI(server, MadeUpSecret("kbt_", 99));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("retry in"));
  // A token of the wrong form never reaches the store, and a known user's
  // token is still good.
  EXPECT_EQ(WhoAmI(server, "kbt_short").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(WhoAmI(server, ada_).ok());
}

TEST_F(SecurityAuth, FailedLoginsAreLimitedPerAddress) {
  SeedCohort();
  ServerUnderTest server({"--store", store_, "--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Login(server, MadeUpSecret("kbi_", i), "eve").error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  const grpc::Status limited = Login(server, MadeUpSecret("kbi_", 10), "eve");
  EXPECT_EQ(limited.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(limited.error_message(), HasSubstr("too many failed logins"));
}

TEST_F(SecurityAuth, InvitesAreBoundedListedRevocableAndDieWithTheirCreator) {
  SeedCohort();
  ServerUnderTest server({"--store", store_, "--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  ProcessResult too_many =
      Kbench(server.address(), grace_, {"invite", "--cohort", "fall24", "--uses", "1000"});
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_THAT(too_many.err, HasSubstr("200"));

  std::vector<std::string> codes;
  for (int i = 0; i < 2; ++i) {
    ProcessResult invite =
        Kbench(server.address(), grace_, {"invite", "--cohort", "fall24", "--uses", "5"});
    ASSERT_EQ(invite.exit_code, 0) << invite.err;
    codes.push_back(invite.out.substr(0, invite.out.find('\n')));
  }
  ProcessResult listed = Admin({"list-invites", "--cohort", "fall24"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("grace"));
  EXPECT_THAT(listed.out, Not(HasSubstr(codes[0])));
  // Two invites under the header, each line opening with its id.
  std::vector<std::string> ids;
  for (size_t at = listed.out.find('\n') + 1; at < listed.out.size();
       at = listed.out.find('\n', at) + 1) {
    ids.push_back(listed.out.substr(at, listed.out.find(' ', at) - at));
  }
  ASSERT_EQ(ids.size(), 2u) << listed.out;

  ProcessResult bad_id = Admin({"revoke-invite", "nope"});
  EXPECT_EQ(bad_id.exit_code, 1);
  EXPECT_THAT(bad_id.err, HasSubstr("hex digits"));
  ASSERT_EQ(Admin({"revoke-invite", ids[0]}).exit_code, 0);
  std::vector<grpc::StatusCode> revoked_logins;
  for (const std::string& code : codes)
    revoked_logins.push_back(Login(server, code, "bob").error_code());
  // Exactly one code still works: the one not revoked.
  EXPECT_EQ(std::count(revoked_logins.begin(), revoked_logins.end(), grpc::StatusCode::OK), 1);
  const std::string& alive = revoked_logins[0] == grpc::StatusCode::OK ? codes[0] : codes[1];

  ASSERT_EQ(Admin({"revoke", "grace"}).exit_code, 0);
  const grpc::Status dead = Login(server, alive, "cy");
  EXPECT_EQ(dead.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  ProcessResult after = Admin({"list-invites"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_THAT(after.out, Not(HasSubstr("grace")));
}

TEST_F(SecurityAuth, OneConnectionHoldsAtMostItsShareOfStreams) {
  ServerUnderTest server({"--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto health = grpc::health::v1::Health::NewStub(server.channel());
  grpc::health::v1::HealthCheckRequest request;
  request.set_service("kbench.v1.KernelBench");
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<grpc::health::v1::HealthCheckResponse>>> watches;
  for (int i = 0; i < server::kMaxConcurrentStreamsPerConnection; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    watches.push_back(health->Watch(contexts.back().get(), request));
    grpc::health::v1::HealthCheckResponse response;
    ASSERT_TRUE(watches.back()->Read(&response)) << i;
  }
  auto info = [&] {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 2s);
    v1::ServerInfo response;
    return server.Stub()->GetServerInfo(&context, v1::GetServerInfoRequest(), &response);
  };
  EXPECT_EQ(info().error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  contexts.back()->TryCancel();
  watches.back()->Finish();
  EXPECT_TRUE(info().ok());
  for (auto& context : contexts) context->TryCancel();
  for (size_t i = 0; i + 1 < watches.size(); ++i) watches[i]->Finish();
}

}  // namespace
}  // namespace kbench::testing
