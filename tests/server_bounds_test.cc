// kbench-server as a process, under clients that misbehave: thirty Run
// streams that never read keep the server's memory under its stated bound
// (docs/API.md, "Bounds"), and a label cannot forge a line of its log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/server_under_test.h"

namespace kbench {
namespace {

using ::kbench::testing::RunStream;
using ::kbench::testing::ServerUnderTest;
using ::kbench::testing::VectorAdd;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

// A field of /proc/PID/status in kB (VmRSS, VmHWM), or -1.
long StatusKb(int pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return -1;
}

TEST(ServerBounds, ThirtyStreamsThatNeverReadKeepTheServerUnderItsMemoryBound) {
  constexpr int kStreams = 30;
  // The bound docs/API.md states: what the server holds for 30 unread
  // streams, beyond what it held before them.
  constexpr long kBoundKb = 64 * 1024;
  ServerUnderTest server({"--backend", "cpu", "--max-streams-per-client", "30"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  const int pid = server.process().pid();
  ASSERT_GT(server.Info().devices_size(), 0);
  const long before_kb = StatusKb(pid, "VmRSS");
  ASSERT_GT(before_kb, 0);

  // Each run samples a tiny vector add for 300 ms: hundreds of thousands of
  // samples, none of them read; every stream has a channel of its own.
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::RunEvent>>> readers;
  std::vector<std::unique_ptr<v1::KernelBench::Stub>> stubs;
  v1::RunRequest request = VectorAdd(64, 300);
  request.mutable_timing()->set_warmup_runs(1);
  for (int i = 0; i < kStreams; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("kbench.test.stream", i);  // a connection per stream
    // A small window, as a client that never reads would grant: what the
    // server cannot send, it holds.
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 65536);
    stubs.push_back(v1::KernelBench::NewStub(
        grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args)));
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    readers.push_back(stubs.back()->Run(contexts.back().get(), request));
  }
  // Every run ends; nothing was read.
  const auto give_up = std::chrono::steady_clock::now() + 90s;
  v1::ServerInfo info;
  do {
    std::this_thread::sleep_for(500ms);
    info = server.Info();
  } while ((info.running() > 0 || info.queued() > 0) && std::chrono::steady_clock::now() < give_up);
  ASSERT_EQ(info.running() + info.queued(), 0u) << "the runs did not end";
  const long peak_kb = StatusKb(pid, "VmHWM");
  EXPECT_LT(peak_kb - before_kb, kBoundKb)
      << "before " << before_kb << " kB, peak " << peak_kb << " kB";
  for (auto& context : contexts) context->TryCancel();
  for (auto& reader : readers) reader->Finish();
}

TEST(ServerBounds, ALabelWithANewlineIsEscapedInTheLog) {
  ServerUnderTest server({"--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  v1::RunRequest request = VectorAdd(1000, 10);
  request.set_label("lab3\n2026-01-01T00:00:00.000Z forged line\x1b[2J");
  RunStream run(*stub, request);
  ASSERT_TRUE(run.Finish().ok());
  ASSERT_TRUE(server.process().WaitForOutput("ended after", 10s, /*from_stderr=*/true));
  const std::string& log = server.process().err();
  EXPECT_THAT(log, HasSubstr("label=\"lab3\\n2026-01-01T00:00:00.000Z forged line\\x1b[2J\""));
  EXPECT_THAT(log, Not(HasSubstr("\n2026-01-01T00:00:00.000Z forged")));
}

TEST(ServerBounds, TextThatIsNotUtf8IsRefusedNamingTheFieldWithNoParserErrorLogged) {
  ServerUnderTest server({"--backend", "cpu"});
  ASSERT_FALSE(server.address().empty()) << server.process().err();
  auto stub = server.Stub();
  v1::RunRequest request = VectorAdd(1000, 10);
  request.set_label("lab\xff3");
  RunStream run(*stub, request);
  const grpc::Status status = run.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("label must be valid UTF-8"));
  v1::RunRequest bad_variant = VectorAdd(1000, 10);
  bad_variant.add_variants(std::string("naive\xff"));
  const grpc::Status variant_status = RunStream(*stub, bad_variant).Finish();
  EXPECT_EQ(variant_status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(variant_status.error_message(), HasSubstr("variants[0] must be valid UTF-8"));
  // A run after them is logged; the refusals left no line of the parser's.
  ASSERT_TRUE(RunStream(*stub, VectorAdd(1000, 10)).Finish().ok());
  ASSERT_TRUE(server.process().WaitForOutput("ended after", 10s, /*from_stderr=*/true));
  EXPECT_THAT(server.process().err(), Not(HasSubstr("libprotobuf")));
  EXPECT_THAT(server.process().err(), Not(HasSubstr("UTF-8")));
}

}  // namespace
}  // namespace kbench
