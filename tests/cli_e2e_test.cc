// The kbench CLI as a process against a real kbench-server on the CPU
// backend: every op through the generic Run RPC, output formats, exit codes,
// server-side refusals, the CLI's messages for bad input and a server that
// dies mid-run, and Ctrl-C cancelling the run on the server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cpu_server_suite.h"

namespace kbench {
namespace {

using ::kbench::testing::ChildProcess;
using ::kbench::testing::CpuServerSuite;
using ::kbench::testing::ProcessResult;
using ::kbench::testing::RunProcess;
using ::kbench::testing::ServerUnderTest;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream stream(line);
  for (std::string field; std::getline(stream, field, ',');) {
    fields.push_back(field);
  }
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

// One kbench-server for the whole suite (cpu_server_suite.h).
class CliEndToEnd : public CpuServerSuite {
 protected:
  // Runs kbench with `args`, without --server.
  static ProcessResult KbenchAnywhere(std::vector<std::string> args) {
    args.insert(args.begin(), KBENCH_CLIENT_BIN);
    return RunProcess(args, 120s);
  }

  // Runs kbench against the suite's server.
  static ProcessResult Kbench(std::vector<std::string> args) {
    args.insert(args.begin(), {"--server", address()});
    return KbenchAnywhere(std::move(args));
  }

  static nlohmann::json ServerInfo() {
    ProcessResult info = Kbench({"info", "--json"});
    EXPECT_EQ(info.exit_code, 0) << info.err;
    return nlohmann::json::parse(info.out);
  }
};

// A short vector add of both variants, then `extra` arguments.
std::vector<std::string> VectorAdd(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"vector-add",       "--n",         "1000", "--variant",
                                   "naive,vectorized", "--budget-ms", "200"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST_F(CliEndToEnd, VectorAddPrintsATableOfBothVerifiedVariants) {
  ProcessResult run = Kbench(VectorAdd());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("vector_add n=1000"));
  int verified_rows = 0;
  for (const std::string& line : Lines(run.out)) {
    if (line.rfind("naive ", 0) == 0 || line.rfind("vectorized ", 0) == 0) {
      EXPECT_THAT(line, HasSubstr("  yes  "));
      ++verified_rows;
    }
  }
  EXPECT_EQ(verified_rows, 2) << run.out;
  EXPECT_THAT(run.out, HasSubstr("baseline"));
  EXPECT_THAT(run.err, HasSubstr("started on cpu"));
  EXPECT_THAT(run.err, HasSubstr("naive: verified"));
}

TEST_F(CliEndToEnd, JsonHasTwoVerifiedResultsAndOneSpeedup) {
  ProcessResult run = Kbench(VectorAdd({"--json"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["op"], "vector_add");
  EXPECT_FALSE(json["run_id"].get<std::string>().empty());
  EXPECT_EQ(json["request"]["vector_add"]["n"], 1000);  // a number, not a string
  ASSERT_EQ(json["results"].size(), 2u);
  for (const nlohmann::json& result : json["results"]) {
    EXPECT_EQ(result["verification"]["passed"], true) << result.dump();
  }
  ASSERT_EQ(json["summary"]["speedups"].size(), 1u);
  EXPECT_EQ(json["summary"]["speedups"][0]["variant"], "vectorized");
  EXPECT_EQ(json["summary"]["run_id"], json["run_id"]);
}

TEST_F(CliEndToEnd, CsvAppendedToAFileWritesItsHeaderOnce) {
  char path[] = "/tmp/kbench-append-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::string command = std::string(KBENCH_CLIENT_BIN) + " --server " + address() + " --csv";
  for (const std::string& arg : VectorAdd()) command += " " + arg;
  command += " >> " + std::string(path);
  for (int i = 0; i < 2; ++i) {
    const ProcessResult run = RunProcess({"/bin/sh", "-c", command}, 120s);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  std::ifstream file(path);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::remove(path);
  const std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(lines.size(), 5u) << text;  // one header, two rows per call
  EXPECT_EQ(lines[0].rfind("run_id,op,", 0), 0u);
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_NE(lines[i].rfind("run_id,", 0), 0u) << i;
  // --no-header leaves it out of an empty file too.
  const ProcessResult bare = Kbench(VectorAdd({"--csv", "--no-header"}));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(Lines(bare.out).size(), 2u) << bare.out;
}

TEST_F(CliEndToEnd, CsvHasAHeaderAndOneRowPerVariant) {
  ProcessResult run = Kbench(VectorAdd({"--csv"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 3u) << run.out;
  EXPECT_EQ(lines[0].rfind("run_id,op,dtype,n,", 0), 0u);
  const size_t columns = CsvFields(lines[0]).size();
  EXPECT_EQ(columns, 33u);
  EXPECT_EQ(CsvFields(lines[1]).size(), columns);
  EXPECT_EQ(CsvFields(lines[2]).size(), columns);
  EXPECT_EQ(CsvFields(lines[1])[9], "naive");
  EXPECT_EQ(CsvFields(lines[2])[9], "vectorized");
  EXPECT_EQ(CsvFields(lines[2])[23], "true");  // verified
}

TEST_F(CliEndToEnd, AttentionRunsThroughRunWithTheShapeFromItsFields) {
  ProcessResult run = Kbench({"attention", "--seq", "2^6", "--heads", "2", "--causal", "--variant",
                              "naive,fused", "--budget-ms", "100"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("attention batch=1 heads=2 seq_len=64 "
                                 "head_dim=64 causal, fp32, cpu"));
  EXPECT_THAT(run.err, HasSubstr("fused: verified"));
}

TEST_F(CliEndToEnd, CsvOfAttentionFillsItsColumnsAndTheNewOnes) {
  ProcessResult run =
      Kbench({"attention", "--seq", "64", "--heads", "2", "--variant", "naive,fused", "--budget-ms",
              "100", "--min-effect", "0.05", "--csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 3u) << run.out;
  const std::vector<std::string> header = CsvFields(lines[0]);
  const std::vector<std::string> fused = CsvFields(lines[2]);
  ASSERT_EQ(fused.size(), header.size());
  auto column = [&](const std::string& name) {
    return fused[std::find(header.begin(), header.end(), name) - header.begin()];
  };
  EXPECT_EQ(column("op"), "attention");
  EXPECT_EQ(column("n"), "");
  EXPECT_EQ(column("heads"), "2");
  EXPECT_EQ(column("seq_len"), "64");
  EXPECT_EQ(column("causal"), "false");
  EXPECT_EQ(column("speedup_min_effect"), "0.05");
  EXPECT_FALSE(column("median_ci_confidence").empty());
  EXPECT_FALSE(column("speedup_rounds").empty());
  EXPECT_FALSE(column("speedup_ci_confidence").empty());
}

TEST_F(CliEndToEnd, OverLimitSeqLenIsRefusedByTheServerWithExitCode2) {
  // 2^20 is over every backend's max_seq_len.
  ProcessResult run = Kbench({"attention", "--seq", "1M"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("kbench: invalid request: "));
  EXPECT_THAT(run.err, HasSubstr("seq_len"));
}

TEST_F(CliEndToEnd, ZeroSeqLenIsRefusedByTheCliWithExitCode2NamingTheFlag) {
  ProcessResult run = Kbench({"attention", "--seq", "0"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--seq"));
}

TEST_F(CliEndToEnd, UnknownSubcommandIsNamedWithTheSubcommands) {
  ProcessResult run = Kbench({"vectoradd", "--n", "8"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("unknown subcommand 'vectoradd'"));
  EXPECT_THAT(run.err, HasSubstr("vector-add, attention, info"));
  EXPECT_THAT(run.err, Not(HasSubstr("A subcommand is required")));
}

TEST_F(CliEndToEnd, EmptyOrInvalidServerAddressSaysWhatIsWrong) {
  ProcessResult empty = KbenchAnywhere({"--server", "", "info"});
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_THAT(empty.err, HasSubstr("--server: '' is empty"));
  EXPECT_THAT(empty.err, Not(HasSubstr("resolver")));
  ProcessResult invalid = KbenchAnywhere({"--server", "127.0.0.1:x", "info"});
  EXPECT_EQ(invalid.exit_code, 2) << invalid.err;
  EXPECT_THAT(invalid.err, HasSubstr("has port 'x'"));
  EXPECT_THAT(invalid.err, Not(HasSubstr("connection failed")));
}

TEST_F(CliEndToEnd, NanBudgetIsRefusedAsNotAFiniteNumber) {
  ProcessResult run = Kbench({"vector-add", "--n", "1000", "--budget-ms", "nan"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--budget-ms: must be a finite number"));
}

TEST_F(CliEndToEnd, UnknownVariantIsRefusedWithExitCode2NamingIt) {
  ProcessResult run = Kbench({"vector-add", "--n", "1000", "--variant", "bogus"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("kbench: invalid request: "));
  EXPECT_THAT(run.err, HasSubstr("bogus"));
}

TEST_F(CliEndToEnd, UnreachableServerExitsWith3) {
  const auto start = std::chrono::steady_clock::now();
  ProcessResult run = KbenchAnywhere({"--server", "127.0.0.1:1", "vector-add", "--n", "1000"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_THAT(run.err, HasSubstr("cannot reach server at 127.0.0.1:1"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
}

TEST_F(CliEndToEnd, InfoJsonListsVectorAddAndItsVariants) {
  const nlohmann::json info = ServerInfo();
  EXPECT_EQ(info["backend"], "cpu");
  const auto& ops = info["ops"];
  const auto vector_add = std::find_if(
      ops.begin(), ops.end(), [](const nlohmann::json& op) { return op["op"] == "vector_add"; });
  ASSERT_NE(vector_add, ops.end()) << info.dump();
  EXPECT_THAT((*vector_add)["variants"].get<std::vector<std::string>>(),
              ::testing::IsSupersetOf({"naive", "vectorized"}));
}

TEST_F(CliEndToEnd, InfoShowsOpDescriptionsAndVariantSummaries) {
  const nlohmann::json info = ServerInfo();
  ProcessResult text = Kbench({"info"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const nlohmann::json& op : info["ops"]) {
    EXPECT_THAT(text.out, HasSubstr(op["op"].get<std::string>() + ": " +
                                    op["description"].get<std::string>()));
    for (const nlohmann::json& variant : op["variant_details"]) {
      EXPECT_THAT(text.out, HasSubstr(variant["name"].get<std::string>() + " (fp32"));
      EXPECT_THAT(text.out, HasSubstr(variant["summary"].get<std::string>()));
    }
  }
}

TEST_F(CliEndToEnd, TlsToAPlainTextServerIsNamedAsATlsMismatch) {
  ProcessResult info = Kbench({"--tls", "info"});
  EXPECT_EQ(info.exit_code, 3) << info.err;
  EXPECT_THAT(info.err, HasSubstr("the server does not speak TLS (it serves plain "
                                  "text): leave out --tls"));
  EXPECT_THAT(info.err, Not(HasSubstr("is kbench-server running?")));
  // No line of gRPC's own log ("E1204 12:00:00.000 ... file.cc:123] ...").
  EXPECT_THAT(info.err, Not(::testing::ContainsRegex("[.]cc:[0-9]+\\]")));
}

TEST_F(CliEndToEnd, AServerThatDiesMidRunIsReportedAsALostConnection) {
  const std::unique_ptr<ServerUnderTest> server = StartCpuServer();
  ASSERT_FALSE(server->address().empty());
  ChildProcess run({KBENCH_CLIENT_BIN, "--server", server->address(), "attention", "--seq", "256",
                    "--min-time-ms", "30000", "--budget-ms", "30000", "--min-samples", "100000",
                    "--max-samples", "100000"});
  ASSERT_TRUE(run.WaitForOutput("started on", 60s, /*from_stderr=*/true)) << run.err();

  server->process().Signal(SIGKILL);
  EXPECT_EQ(run.Wait(10s), 3) << run.err();
  EXPECT_THAT(run.err(), HasSubstr("was lost during the run"));
  EXPECT_THAT(run.err(), Not(HasSubstr("is kbench-server running?")));
}

TEST_F(CliEndToEnd, CtrlCCancelsTheRunOnTheServerAndExitsWith130) {
  // As long a run as the server's limits allow (0: no limit).
  const nlohmann::json limits = ServerInfo()["limits"];
  const double max_budget_ms = limits["max_time_budget_ms"].get<double>();
  const uint32_t max_samples_limit = limits["max_samples"].get<uint32_t>();
  const std::string budget_ms = std::to_string(max_budget_ms > 0 ? max_budget_ms : 60000.0);
  const std::string max_samples =
      std::to_string(max_samples_limit > 0 ? max_samples_limit : 100000u);
  ChildProcess run({KBENCH_CLIENT_BIN, "--server", address(), "attention", "--seq", "256",
                    "--variant", "naive,fused", "--min-time-ms", budget_ms, "--budget-ms",
                    budget_ms, "--min-samples", max_samples, "--max-samples", max_samples});
  ASSERT_TRUE(run.WaitForOutput("started on", 60s, /*from_stderr=*/true)) << run.err();
  ASSERT_EQ(ServerInfo()["running"], 1);

  run.Signal(SIGINT);
  EXPECT_EQ(run.Wait(10s), 130) << run.err();
  EXPECT_THAT(run.err(), HasSubstr("kbench: interrupted; run cancelled"));

  const auto give_up = std::chrono::steady_clock::now() + 5s;
  int running = -1;
  while (std::chrono::steady_clock::now() < give_up) {
    running = ServerInfo()["running"].get<int>();
    if (running == 0) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(running, 0) << "the server still runs the cancelled run";
}

}  // namespace
}  // namespace kbench
