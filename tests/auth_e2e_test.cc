// Identities end to end: `kbench-server admin` on a store, a server that
// turns authentication on because the store has users, and the kbench
// client's token, login, invite and whoami against it (CPU backend); the
// refusals: no or a revoked token, a learner inviting, a token in clear
// text to another host, a non-loopback --listen without authentication.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/auth_process_fixture.h"
#include "tests/process_helper.h"
#include "tests/server_under_test.h"
#include "tests/temp_dir.h"

namespace kbench::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using AuthEndToEnd = AuthProcessTest;

TEST_F(AuthEndToEnd, AdminAddsUsersPrintingEachTokenOnceAndListsThem) {
  ASSERT_EQ(Admin({"add-cohort", "fall24"}).exit_code, 0);
  const std::string token = AddUser("grace", "instructor", "fall24");
  EXPECT_THAT(token, StartsWith("kbt_"));
  ProcessResult list = Admin({"list-users"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("grace"));
  EXPECT_THAT(list.out, HasSubstr("instructor"));
  EXPECT_THAT(list.out, HasSubstr("fall24"));
  EXPECT_THAT(list.out, ::testing::Not(HasSubstr(token)));
  ProcessResult again = Admin({"add-user", "grace", "--role", "learner", "--cohort", "fall24"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("already exists"));
  ProcessResult no_cohort = Admin({"add-user", "ada", "--role", "learner", "--cohort", "nope"});
  EXPECT_EQ(no_cohort.exit_code, 1);
  EXPECT_THAT(no_cohort.err, HasSubstr("add-cohort"));
}

TEST_F(AuthEndToEnd, RosterImportPrintsEveryLearnersTokenAsCsvOrAddsNone) {
  ASSERT_EQ(Admin({"add-cohort", "fall24"}).exit_code, 0);
  const std::string roster = dir_.path() + "/roster.csv";
  std::ofstream(roster) << "name,email\nada,ada@example.org\nbob\n";
  ProcessResult imported = Admin({"import-roster", "--cohort", "fall24", roster});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  std::vector<std::string> lines;
  std::istringstream out(imported.out);
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << imported.out;
  EXPECT_EQ(lines[0], "name,email,token\r");
  EXPECT_THAT(lines[1], StartsWith("ada,ada@example.org,kbt_"));
  EXPECT_THAT(lines[2], StartsWith("bob,,kbt_"));
  EXPECT_NE(lines[1].substr(lines[1].rfind(',')), lines[2].substr(lines[2].rfind(',')));

  std::ofstream(roster) << "cy\nbad name\n";
  ProcessResult bad = Admin({"import-roster", "--cohort", "fall24", roster});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("line 2"));
  EXPECT_THAT(Admin({"list-users"}).out, ::testing::Not(HasSubstr("cy")));
}

TEST_F(AuthEndToEnd, InviteLoginWhoamiRunsAndRevocation) {
  ASSERT_EQ(Admin({"add-cohort", "fall24"}).exit_code, 0);
  const std::string grace = AddUser("grace", "instructor", "fall24");
  ServerUnderTest server({"--store", store_, "--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  EXPECT_THAT(server.process().err(), HasSubstr("auth: on"));

  ProcessResult anonymous = Kbench(server.address(), "", {"info"});
  EXPECT_EQ(anonymous.exit_code, 4);  // not signed in
  EXPECT_THAT(anonymous.err, HasSubstr("kbench login"));

  ProcessResult invite = Kbench(server.address(), grace, {"invite", "--cohort", "fall24"});
  ASSERT_EQ(invite.exit_code, 0) << invite.err;
  std::string code = invite.out.substr(0, invite.out.find('\n'));
  EXPECT_THAT(code, StartsWith("kbi_"));
  EXPECT_THAT(invite.err, HasSubstr(" UTC; learners run: kbench login"));  // when it expires
  EXPECT_THAT(invite.err, HasSubstr("valid until 20"));

  ProcessResult login = Kbench(server.address(), "", {"login", "--invite", code, "--name", "ada"});
  ASSERT_EQ(login.exit_code, 0) << login.err;
  const std::string credentials = config_ + "/kbench/credentials";
  struct stat file {};
  ASSERT_EQ(stat(credentials.c_str(), &file), 0) << login.err;
  EXPECT_EQ(file.st_mode & 0777, 0600u);
  struct stat directory {};
  ASSERT_EQ(stat((config_ + "/kbench").c_str(), &directory), 0);
  EXPECT_EQ(directory.st_mode & 0777, 0700u);
  ProcessResult used = Kbench(server.address(), "", {"login", "--invite", code, "--name", "bob"});
  EXPECT_EQ(used.exit_code, 4);  // not signed in
  EXPECT_THAT(used.err, HasSubstr("used up"));

  // The saved token is sent on every call.
  ProcessResult whoami = Kbench(server.address(), "", {"whoami"});
  ASSERT_EQ(whoami.exit_code, 0) << whoami.err;
  EXPECT_THAT(whoami.out, HasSubstr("ada (learner of cohort fall24)"));
  ProcessResult run = Kbench(server.address(), "",
                             {"--json", "--quiet", "vector-add", "--n", "4096", "--variant",
                              "naive", "--max-samples", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ProcessResult runs = Kbench(server.address(), grace, {"--json", "runs"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_THAT(runs.out, HasSubstr("\"ada\""));

  // KBENCH_TOKEN wins over the file.
  ProcessResult as_grace = Kbench(server.address(), grace, {"whoami"});
  EXPECT_THAT(as_grace.out, HasSubstr("grace (instructor of cohort fall24)"));

  ProcessResult learner_invites = Kbench(server.address(), "", {"invite", "--cohort", "fall24"});
  EXPECT_EQ(learner_invites.exit_code, 4);  // not allowed
  EXPECT_THAT(learner_invites.err, HasSubstr("not allowed"));

  ASSERT_EQ(Admin({"revoke", "ada"}).exit_code, 0);
  // The server sees a revocation within kRevocationPoll (a quarter second,
  // server/auth/revocation_watch.h); until then ada's token is cached.
  std::this_thread::sleep_for(1s);
  ProcessResult revoked = Kbench(server.address(), "", {"whoami"});
  EXPECT_EQ(revoked.exit_code, 4);
  EXPECT_THAT(revoked.err, HasSubstr("not signed in"));
  EXPECT_THAT(revoked.err, HasSubstr("revoked"));
}

TEST_F(AuthEndToEnd, LoginWithATokenChecksItThenSavesIt) {
  ASSERT_EQ(Admin({"add-cohort", "fall24"}).exit_code, 0);
  const std::string grace = AddUser("grace", "instructor", "fall24");
  ServerUnderTest server({"--store", store_, "--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  const std::string credentials = config_ + "/kbench/credentials";

  ProcessResult wrong = Kbench(server.address(), "", {"login", "--token", "kbt_not-a-token"});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(credentials)) << "a token the server refused was saved";

  ProcessResult login = Kbench(server.address(), "", {"login", "--token", grace});
  ASSERT_EQ(login.exit_code, 0) << login.err;
  EXPECT_THAT(login.err, HasSubstr("signed in as grace (instructor of cohort fall24)"));
  std::ifstream file(credentials);
  std::string saved;
  std::getline(file, saved);
  EXPECT_EQ(saved, grace);
  // Later calls send it without KBENCH_TOKEN.
  ProcessResult whoami = Kbench(server.address(), "", {"whoami"});
  ASSERT_EQ(whoami.exit_code, 0) << whoami.err;
  EXPECT_THAT(whoami.out, HasSubstr("grace"));

  ProcessResult neither = Kbench(server.address(), "", {"login"});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_THAT(neither.err, HasSubstr("--token TOKEN"));
}

TEST_F(AuthEndToEnd, ASweepWaitsForTheLearnersQuotaToResetInsteadOfFailingPoints) {
  ASSERT_EQ(Admin({"add-cohort", "fall24"}).exit_code, 0);
  const std::string ada = AddUser("ada", "learner", "fall24");
  ServerUnderTest server({"--store", store_, "--backend", "cpu", "--quota-runs-per-minute", "2"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  // Three points, two runs a minute: the third waits about a minute for the
  // quota's reset, then runs.
  const auto start = std::chrono::steady_clock::now();
  ProcessResult sweep = Kbench(server.address(), ada,
                               {"sweep", "vector-add", "--n", "64,128,256", "--variant", "naive",
                                "--budget-ms", "20", "--csv"});
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(sweep.exit_code, 0) << sweep.err;
  EXPECT_THAT(sweep.err, HasSubstr("quota: runs 2 per minute used"));
  EXPECT_THAT(sweep.err, HasSubstr("for your quota to reset, then running the point again"));
  EXPECT_THAT(sweep.err, HasSubstr("3 points: 3 ok"));
  EXPECT_GE(waited, 30s);  // it did wait for the reset
  // The CSV has the header and one row per point.
  EXPECT_EQ(std::count(sweep.out.begin(), sweep.out.end(), '\n'), 4) << sweep.out;
}

TEST_F(AuthEndToEnd, TheClientKeepsATokenOffTheNetworkInClearText) {
  ProcessResult refused = Kbench("192.0.2.1:50051", "kbt_secret", {"info"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("clear text"));
  EXPECT_THAT(refused.err, HasSubstr("--tls"));
  // No token, or loopback: nothing to refuse (the server is simply not there).
  ProcessResult loopback = Kbench("127.0.0.1:1", "kbt_secret", {"info"});
  EXPECT_EQ(loopback.exit_code, 3);
  EXPECT_THAT(loopback.err, ::testing::Not(HasSubstr("clear text")));
}

TEST_F(AuthEndToEnd, TlsCarriesTheCallsAndTheToken) {
  const std::string cert = dir_.path() + "/cert.pem";
  const std::string key = dir_.path() + "/key.pem";
  ProcessResult made =
      RunProcess({"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                  key, "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext",
                  "subjectAltName=DNS:localhost,IP:127.0.0.1"},
                 60s);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_EQ(Admin({"add-cohort", "fall24"}).exit_code, 0);
  const std::string grace = AddUser("grace", "instructor", "fall24");
  ServerUnderTest server(
      {"--store", store_, "--backend", "cpu", "--tls-cert", cert, "--tls-key", key});
  ASSERT_FALSE(server.address().empty()) << server.process().err();

  ProcessResult whoami = Kbench(server.address(), grace, {"--tls", "--ca", cert, "whoami"});
  EXPECT_EQ(whoami.exit_code, 0) << whoami.err;
  EXPECT_THAT(whoami.out, HasSubstr("grace"));
  ProcessResult plain = Kbench(server.address(), grace, {"whoami"});
  EXPECT_EQ(plain.exit_code, 3);
  // A TLS mismatch is named, with the flag, and no line of gRPC's own log
  // ("E1204 12:00:00.000 ... ssl_transport_security.cc:1234] ...") appears.
  EXPECT_THAT(plain.err, HasSubstr("the server speaks TLS and this client does not: give --tls"));
  EXPECT_THAT(plain.err, ::testing::Not(HasSubstr("is kbench-server running?")));
  EXPECT_THAT(plain.err, ::testing::Not(::testing::ContainsRegex("[.]cc:[0-9]+\\]")));
  ProcessResult untrusted = Kbench(server.address(), grace, {"--tls", "whoami"});
  EXPECT_EQ(untrusted.exit_code, 3);
  EXPECT_THAT(untrusted.err, HasSubstr("its certificate is not trusted (give --ca FILE"));
  EXPECT_THAT(untrusted.err, ::testing::Not(::testing::ContainsRegex("[.]cc:[0-9]+\\]")));
}

TEST_F(AuthEndToEnd, WithoutAuthenticationTheServerListensOnLoopbackOnly) {
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--listen", "0.0.0.0:0", "--http", "off"},
        std::vector<std::string>{"--listen", "127.0.0.1:0", "--http", "0.0.0.0:0"}}) {
    std::vector<std::string> argv = {KBENCH_SERVER_BIN, "--store", store_, "--backend", "cpu",
                                     "--auth",          "off"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ProcessResult refused = RunProcess(argv, 60s);
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_THAT(refused.err, HasSubstr("--insecure"));
    EXPECT_THAT(refused.err,
                HasSubstr(flags[3] == "off" ? "--listen 0.0.0.0:0" : "--http 0.0.0.0:0"));
  }
  ProcessResult no_users = RunProcess(
      {KBENCH_SERVER_BIN, "--store", store_, "--auth", "on", "--listen", "127.0.0.1:0"}, 60s);
  EXPECT_EQ(no_users.exit_code, 1);
  EXPECT_THAT(no_users.err, HasSubstr("add-user"));
}

}  // namespace
}  // namespace kbench::testing
