// The dashboard port as an attacker on the course network meets it (issue
// 37): a request is refused once its headers are read, before a byte of a
// body; the Host header must name the dashboard (DNS rebinding); replies
// forbid framing; /metrics needs a token; the live queue shows an
// instructor their cohort only; HTTPS refuses TLS 1.1; and idle connections
// cannot pile up in the process.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "openssl/ssl.h"
#include "prometheus/registry.h"
#include "server/auth/token_authenticator.h"
#include "server/http/dashboard_server.h"
#include "server/http/http_limits.h"
#include "server/http/request_gate.h"
#include "tests/process_helper.h"
#include "tests/role_stores.h"
#include "tests/temp_dir.h"

namespace kbench::server::http {
namespace {

using ::kbench::testing::OpenSeededStores;
using ::kbench::testing::SeededStores;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Json = nlohmann::json;
using namespace std::chrono_literals;

// A run of ada (fall24) and one of cy (spring25) on the device.
LiveState TwoCohortsLive() {
  LiveState state;
  LiveRun ada;
  ada.run_id = "live-ada";
  ada.user = "ada";
  ada.cohort = "fall24";
  ada.started_unix_ms = 1;
  LiveRun cy;
  cy.run_id = "live-cy";
  cy.user = "cy";
  cy.cohort = "spring25";
  state.running.push_back(ada);
  state.waiting.push_back(cy);
  return state;
}

// A plain TCP connection to the dashboard, to send what no HTTP client
// library would.
class RawConnection {
 public:
  // `wait`: connect before returning; else start connecting and return.
  explicit RawConnection(int port, bool wait = true) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    if (!wait) fcntl(fd_, F_SETFL, O_NONBLOCK);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    timeval timeout{.tv_sec = 10, .tv_usec = 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }
  ~RawConnection() { close(fd_); }

  bool connected() const { return connected_; }
  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == ssize_t(bytes.size());
  }
  // The reply's status line and headers (up to the blank line), or what
  // came before the connection closed or 10 s passed.
  std::string ReadHead() {
    std::string head;
    char byte;
    while (head.find("\r\n\r\n") == std::string::npos && recv(fd_, &byte, 1, 0) == 1) {
      head += byte;
    }
    return head;
  }

 private:
  int fd_;
  bool connected_ = false;
};

class SecurityHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<SeededStores> stores = OpenSeededStores(dir_.path() + "/runs.db");
    ASSERT_TRUE(stores.ok()) << stores.status();
    stores_ = *std::move(stores);
    authenticator_ = std::make_unique<auth::TokenAuthenticator>(*stores_.identities);
    absl::StatusOr<std::unique_ptr<DashboardServer>> server =
        DashboardServer::Start(*stores_.runs, TwoCohortsLive, registry_,
                               {.listen = "127.0.0.1:0", .authenticator = authenticator_.get()});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  httplib::Result Get(const std::string& path, const std::string& token,
                      httplib::Headers headers = {}) {
    httplib::Client client("127.0.0.1", server_->port());
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client.Get(path, headers);
  }

  ::kbench::testing::TempDir dir_;
  SeededStores stores_;
  std::unique_ptr<auth::TokenAuthenticator> authenticator_;
  prometheus::Registry registry_;
  std::unique_ptr<DashboardServer> server_;
};

TEST_F(SecurityHttpTest, AnUnauthenticatedPostIsRefusedBeforeItsBodyIsRead) {
  // A body of a gigabyte announced and never sent: the reply comes at once,
  // not after the server read (or waited for) the body.
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.connected());
  ASSERT_TRUE(connection.Send(
      "POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000000\r\n\r\n"));
  const auto start = std::chrono::steady_clock::now();
  const std::string head = connection.ReadHead();
  EXPECT_THAT(head, StartsWith("HTTP/1.1 405"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(SecurityHttpTest, AGetThatDeclaresABodyIsRefusedBeforeTheBody) {
  for (const std::string framing : {"Content-Length: 1000000000", "Transfer-Encoding: chunked"}) {
    RawConnection connection(server_->port());
    ASSERT_TRUE(connection.connected());
    ASSERT_TRUE(connection.Send("GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n" + framing +
                                "\r\nAuthorization: Bearer " + stores_.tokens.root + "\r\n\r\n"));
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THAT(connection.ReadHead(), StartsWith("HTTP/1.1 413")) << framing;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s) << framing;
  }
}

TEST_F(SecurityHttpTest, AClientWaitingFor100ContinueLearnsTheRefusal) {
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.connected());
  ASSERT_TRUE(
      connection.Send("PUT /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n"
                      "Expect: 100-continue\r\n\r\n"));
  EXPECT_THAT(connection.ReadHead(), StartsWith("HTTP/1.1 405"));
}

TEST_F(SecurityHttpTest, EveryMethodButGetAndHeadIsRefused) {
  httplib::Client client("127.0.0.1", server_->port());
  const httplib::Headers token = {{"Authorization", "Bearer " + stores_.tokens.root}};
  const auto expect_refused = [](const httplib::Result& result) {
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 405) << result->body;
  };
  expect_refused(client.Post("/api/runs", token, "x", "text/plain"));
  expect_refused(client.Put("/", "", "text/plain"));
  expect_refused(client.Delete("/api/runs", token));
  expect_refused(client.Options("/api/runs"));
  EXPECT_EQ(client.Head("/api/runs", token)->status, 200);
}

TEST_F(SecurityHttpTest, AHeaderLineOverTheLibrarysLimitIsRefused) {
  httplib::Result result = Get("/", "", {{"X-Long", std::string(16 * 1024, 'a')}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 400);
}

TEST_F(SecurityHttpTest, AHostOfAnotherNameIsRefused) {
  // What a page at attacker.example sends once its name resolves to
  // 127.0.0.1 (DNS rebinding).
  httplib::Result rebound = Get("/api/runs", stores_.tokens.root, {{"Host", "attacker.example"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  EXPECT_THAT(rebound->body, HasSubstr("--http-host"));
  EXPECT_EQ(Get("/", "", {{"Host", "attacker.example:8080"}})->status, 403);
  for (const char* host :
       {"127.0.0.1", "localhost:8080", "LOCALHOST", "[::1]:8080", "10.1.2.3:8080"}) {
    EXPECT_EQ(Get("/", "", {{"Host", host}})->status, 200) << host;
  }
}

TEST_F(SecurityHttpTest, TheConfiguredNamesAreAllowed) {
  const std::vector<std::string> names = {"kbench.course.example"};
  EXPECT_TRUE(HostAllowed("kbench.course.example", names));
  EXPECT_TRUE(HostAllowed("KBench.Course.Example.:443", names));
  EXPECT_FALSE(HostAllowed("kbench.course.example.attacker.example", names));
  EXPECT_FALSE(HostAllowed("kbench.course.example:x", names));
  EXPECT_FALSE(HostAllowed("", names));
}

TEST_F(SecurityHttpTest, RepliesForbidFraming) {
  for (const char* path : {"/", "/api/runs", "/nothing"}) {
    httplib::Result result = Get(path, stores_.tokens.root);
    ASSERT_TRUE(result) << path;
    EXPECT_THAT(result->get_header_value("Content-Security-Policy"),
                HasSubstr("frame-ancestors 'none'"))
        << path;
    EXPECT_EQ(result->get_header_value("X-Frame-Options"), "DENY") << path;
  }
}

TEST_F(SecurityHttpTest, MetricsNeedAToken) {
  EXPECT_EQ(Get("/metrics", "")->status, 401);
  EXPECT_EQ(Get("/metrics", "kbt_not_a_token")->status, 401);
  httplib::Result scraped = Get("/metrics", stores_.tokens.ada);
  ASSERT_TRUE(scraped);
  EXPECT_EQ(scraped->status, 200);
  EXPECT_THAT(scraped->body, HasSubstr("kbench_queue_depth"));
}

TEST_F(SecurityHttpTest, AnInstructorSeesTheLiveRunsOfTheirCohortOnly) {
  auto live_learners = [&](const std::string& token) {
    httplib::Result result = Get("/api/live/runs", token);
    std::set<std::string> learners;
    EXPECT_TRUE(result);
    if (!result) return learners;
    EXPECT_EQ(result->status, 200) << result->body;
    const Json body = Json::parse(result->body);
    for (const Json& row : body["rows"]) {
      learners.insert(row["learner"].get<std::string>());
    }
    return learners;
  };
  EXPECT_EQ(live_learners(stores_.tokens.grace), std::set<std::string>{"ada"});
  EXPECT_EQ(live_learners(stores_.tokens.ada), std::set<std::string>{"ada"});
  EXPECT_EQ(live_learners(stores_.tokens.bob), std::set<std::string>{});
  EXPECT_EQ(live_learners(stores_.tokens.root), (std::set<std::string>{"ada", "cy"}));
}

TEST_F(SecurityHttpTest, IdleConnectionsWaitOutsideTheProcess) {
  // Far more idle connections than the server serves and lets wait: it
  // accepts no more than its bounds (its sockets are counted among this
  // process's descriptors), and once they go a request is answered.
  std::vector<std::unique_ptr<RawConnection>> idle;
  const size_t bound = kServingThreads + kMaxWaitingConnections;
  for (size_t i = 0; i < 2 * bound; ++i) {
    idle.push_back(std::make_unique<RawConnection>(server_->port(), /*wait=*/false));
    // Slower than the accept thread, so that the listen backlog (5) does not
    // drop the connections the server would accept.
    std::this_thread::sleep_for(5ms);
  }
  std::this_thread::sleep_for(1s);
  size_t sockets = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    const std::string target = std::filesystem::read_symlink(entry.path(), error).string();
    if (!error && target.rfind("socket:", 0) == 0) ++sockets;
  }
  // The test's ends, the server's accepted ones (one more held by the
  // accept thread while it waits for room), and a few others (the listening
  // socket).
  EXPECT_LE(sockets, idle.size() + bound + 1 + 4) << "of " << idle.size();
  idle.clear();
  httplib::Client client("127.0.0.1", server_->port());
  httplib::Result result = client.Get("/");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
}

TEST_F(SecurityHttpTest, HttpsRefusesTls11) {
  const std::string cert = dir_.path() + "/cert.pem";
  const std::string key = dir_.path() + "/key.pem";
  ::kbench::testing::ProcessResult made = ::kbench::testing::RunProcess(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
       cert, "-days", "1", "-subj", "/CN=localhost"},
      60s);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  absl::StatusOr<std::unique_ptr<DashboardServer>> https =
      DashboardServer::Start(*stores_.runs, TwoCohortsLive, registry_,
                             {.listen = "127.0.0.1:0",
                              .authenticator = authenticator_.get(),
                              .tls_cert = cert,
                              .tls_key = key});
  ASSERT_TRUE(https.ok()) << https.status();
  const std::string address = "127.0.0.1:" + std::to_string((*https)->port());
  // SECLEVEL 0: OpenSSL 3 would refuse TLS 1.1 on the client's side alone.
  ::kbench::testing::ProcessResult old_tls =
      ::kbench::testing::RunProcess({"/usr/bin/openssl", "s_client", "-connect", address, "-tls1_1",
                                     "-cipher", "DEFAULT:@SECLEVEL=0"},
                                    30s);
  EXPECT_NE(old_tls.exit_code, 0) << old_tls.out;
  ::kbench::testing::ProcessResult tls12 = ::kbench::testing::RunProcess(
      {"/usr/bin/openssl", "s_client", "-connect", address, "-tls1_2"}, 30s);
  EXPECT_EQ(tls12.exit_code, 0) << tls12.err;
}

}  // namespace
}  // namespace kbench::server::http
