// What a deployment relies on at start and under its probes, on the real
// kbench-server binary (CPU backend): the first start with --auth on and an
// empty store (--bootstrap-admin), liveness that survives a worker restart
// while readiness follows it, `kbench-server probe` for container
// HEALTHCHECKs, and a GPU server asked for a GPU on a machine without one.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "kbench/v1/kbench.grpc.pb.h"
#include "tests/server_under_test.h"

namespace kbench {
namespace {

using namespace std::chrono_literals;
using ::testing::Each;
using ::testing::HasSubstr;
using Health = grpc::health::v1::HealthCheckResponse;
using testing::HealthWatcher;
using testing::RunProcess;
using testing::ServerUnderTest;

constexpr char kToken[] = "kbench-bootstrap-token-0123456789abcdef0123456789";

// The plain-text health address the server printed.
std::string HealthAddress(ServerUnderTest& server) {
  constexpr char kHealthOn[] = "kbench-server health on 127.0.0.1:";
  const std::string& out = server.process().out();
  const size_t at = out.find(kHealthOn);
  if (at == std::string::npos) return "";
  const size_t port_at = at + sizeof(kHealthOn) - 1;
  return "127.0.0.1:" + out.substr(port_at, out.find('\n', port_at) - port_at);
}

grpc::Status ServerInfoWithToken(ServerUnderTest& server, const std::string& token) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 10s);
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  v1::ServerInfo info;
  return server.Stub()->GetServerInfo(&context, v1::GetServerInfoRequest(), &info);
}

TEST(Deployment, TheFirstStartWithAuthOnAndAnEmptyStoreBootstrapsTheAdmin) {
  char pattern[] = "/tmp/kbench-bootstrap-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string token_file = dir + "/admin-token";
  std::ofstream(token_file) << kToken << "\n";
  ServerUnderTest server({"--backend", "cpu", "--auth", "on", "--store", dir + "/runs.sqlite",
                          "--bootstrap-admin", "root", "--bootstrap-admin-token-file", token_file});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  EXPECT_THAT(server.process().err(), HasSubstr("bootstrap: added the admin \"root\""));
  EXPECT_EQ(ServerInfoWithToken(server, "").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  const grpc::Status with_token = ServerInfoWithToken(server, kToken);
  EXPECT_TRUE(with_token.ok()) << with_token.error_message();
  std::filesystem::remove_all(dir);
}

TEST(Deployment, AuthOnWithAnEmptyStoreAndNoBootstrapStillRefusesToStart) {
  char pattern[] = "/tmp/kbench-bootstrap-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const testing::ProcessResult result =
      RunProcess({KBENCH_SERVER_BIN, "--backend", "cpu", "--listen", "127.0.0.1:0", "--http", "off",
                  "--auth", "on", "--store", dir + "/runs.sqlite"},
                 60s);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("--bootstrap-admin"));
}

TEST(Deployment, LivenessStaysServingWhileAWorkerRestartsAndReadinessFollowsIt) {
  ServerUnderTest server({"--backend", "cpu", "--health-listen", "127.0.0.1:0"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  const std::string health_address = HealthAddress(server);
  ASSERT_FALSE(health_address.empty()) << server.process().out();
  auto channel = grpc::CreateChannel(health_address, grpc::InsecureChannelCredentials());
  HealthWatcher readiness(channel);
  HealthWatcher liveness(channel, "");
  ASSERT_TRUE(readiness.WaitForSequence(0, Health::SERVING, Health::SERVING, 30s));
  const size_t seen = readiness.seen();
  const v1::ServerInfo info = server.Info();
  ASSERT_GT(info.devices(0).worker_pid(), 0u);
  ASSERT_EQ(kill(pid_t(info.devices(0).worker_pid()), SIGKILL), 0);
  ASSERT_TRUE(readiness.WaitForSequence(seen, Health::NOT_SERVING, Health::SERVING, 60s))
      << server.process().err();
  ASSERT_GT(liveness.seen(), 0u);
  EXPECT_THAT(liveness.statuses(), Each(Health::SERVING));
}

TEST(Deployment, ProbeSaysServingForTheHealthPortAndFailsForADeadOne) {
  ServerUnderTest server({"--backend", "cpu", "--health-listen", "127.0.0.1:0"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  const std::string health_address = HealthAddress(server);
  const testing::ProcessResult live = RunProcess({KBENCH_SERVER_BIN, "probe", health_address}, 30s);
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_THAT(live.out, HasSubstr("SERVING"));
  const testing::ProcessResult ready = RunProcess(
      {KBENCH_SERVER_BIN, "probe", health_address, "--service", "kbench.v1.KernelBench"}, 30s);
  EXPECT_EQ(ready.exit_code, 0) << ready.err;
  const testing::ProcessResult dead =
      RunProcess({KBENCH_SERVER_BIN, "probe", "127.0.0.1:1", "--timeout-s", "2"}, 30s);
  EXPECT_EQ(dead.exit_code, 1);
  EXPECT_THAT(dead.err, HasSubstr("kbench-server probe: 127.0.0.1:1"));
}

TEST(Deployment, AGpuServerWithoutAGpuRefusesToStartNamingTheReason) {
  struct stat info;
  if (stat("/dev/nvidiactl", &info) == 0) GTEST_SKIP() << "this machine has an NVIDIA driver";
  char pattern[] = "/tmp/kbench-nogpu-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const testing::ProcessResult result =
      RunProcess({KBENCH_SERVER_BIN, "--backend", "cuda", "--listen", "127.0.0.1:0", "--http",
                  "off", "--store", dir + "/runs.sqlite", "--auth", "off"},
                 90s);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("listening")));
#if KBENCH_HAVE_CUDA
  EXPECT_THAT(result.err, HasSubstr("no /dev/nvidiactl: the NVIDIA driver is not loaded"));
#else
  EXPECT_THAT(result.err, HasSubstr("built without CUDA"));
#endif
}

}  // namespace
}  // namespace kbench
