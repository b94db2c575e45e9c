// `kbench sweep` as a process against a real kbench-server on the CPU
// backend: results written per point (CSV and JSON lines), the label every
// run carries, --resume, a spec file, a failing point that does not stop
// the sweep, exit codes, and Ctrl-C leaving a file ready for --resume.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cpu_server_suite.h"
#include "tests/temp_dir.h"

namespace kbench {
namespace {

using ::kbench::testing::ChildProcess;
using ::kbench::testing::CpuServerSuite;
using ::kbench::testing::ProcessResult;
using ::kbench::testing::RunProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// One kbench-server for the whole suite (cpu_server_suite.h).
class SweepEndToEnd : public CpuServerSuite {
 protected:
  // kbench --server ADDRESS sweep ARGS...
  static std::vector<std::string> Sweep(std::vector<std::string> args) {
    args.insert(args.begin(), {KBENCH_CLIENT_BIN, "--server", address(), "sweep"});
    return args;
  }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  ::kbench::testing::TempDir dir_;
};

// A quick vector add sweep over `n`, both variants, then `extra`.
std::vector<std::string> VectorAdd(const std::string& n, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"vector-add",       "--n",         n,   "--variant",
                                   "naive,vectorized", "--budget-ms", "30"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST_F(SweepEndToEnd, WritesOneCsvHeaderAndARowPerVariantPerPoint) {
  const std::string out = Path("sweep.csv");
  ProcessResult run =
      RunProcess(Sweep(VectorAdd("1000,2^11", {"--label", "lab-e2e", "--out", out})), 120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
  const std::vector<std::string> lines = Lines(ReadFile(out));
  ASSERT_EQ(lines.size(), 5u) << ReadFile(out);
  EXPECT_THAT(lines[0], StartsWith("run_id,op,dtype,n,"));
  EXPECT_THAT(lines[1], HasSubstr(",vector_add,fp32,1000,"));
  EXPECT_THAT(lines[3], HasSubstr(",vector_add,fp32,2048,"));
  EXPECT_THAT(run.err, HasSubstr("[1/2] vector_add n=1000, fp32: ok"));
  EXPECT_THAT(run.err, HasSubstr("sweep lab-e2e:"));
  EXPECT_THAT(run.err, HasSubstr("2 points: 2 ok, 0 failed verification, 0 failed"));
}

TEST_F(SweepEndToEnd, JsonLinesCarryTheLabelOrADefaultOne) {
  ProcessResult labelled =
      RunProcess(Sweep(VectorAdd("1000,2000", {"--label", "lab-json", "--json"})), 120s);
  ASSERT_EQ(labelled.exit_code, 0) << labelled.err;
  const std::vector<std::string> lines = Lines(labelled.out);
  ASSERT_EQ(lines.size(), 2u) << labelled.out;
  for (const std::string& line : lines) {
    const nlohmann::json point = nlohmann::json::parse(line);
    EXPECT_EQ(point["request"]["label"], "lab-json");
    EXPECT_EQ(point["results"].size(), 2u);
    EXPECT_EQ(point["summary"]["all_verified"], true);
  }
  ProcessResult unlabelled = RunProcess(Sweep(VectorAdd("1000", {"--json"})), 120s);
  ASSERT_EQ(unlabelled.exit_code, 0) << unlabelled.err;
  EXPECT_THAT(nlohmann::json::parse(unlabelled.out)["request"]["label"].get<std::string>(),
              StartsWith("sweep-"));
}

TEST_F(SweepEndToEnd, ResumeSkipsThePointsInTheFileAndAppendsTheOthers) {
  const std::string out = Path("resume.csv");
  ProcessResult first =
      RunProcess(Sweep(VectorAdd("1000,2000", {"--label", "lab-r", "--out", out})), 120s);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::vector<std::string> before = Lines(ReadFile(out));
  ASSERT_EQ(before.size(), 5u);

  ProcessResult again =
      RunProcess(Sweep(VectorAdd("1000,2000,4000", {"--label", "lab-r", "--resume", out})), 120s);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("resume: 2 of 3 points already in the file"));
  EXPECT_THAT(again.err, HasSubstr("[3/3] vector_add n=4000"));
  EXPECT_THAT(again.err, HasSubstr("1 point: 1 ok"));
  const std::vector<std::string> after = Lines(ReadFile(out));
  ASSERT_EQ(after.size(), 7u) << ReadFile(out);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], before[i]);
  EXPECT_THAT(after[5], HasSubstr(",4000,"));

  // Resuming a CSV file needs the label; --out must not overwrite.
  ProcessResult unlabelled = RunProcess(Sweep(VectorAdd("1000", {"--resume", out})), 60s);
  EXPECT_EQ(unlabelled.exit_code, 2);
  EXPECT_THAT(unlabelled.err, HasSubstr("needs --label"));
  ProcessResult exists = RunProcess(Sweep(VectorAdd("1000", {"--out", out})), 60s);
  EXPECT_EQ(exists.exit_code, 2);
  EXPECT_THAT(exists.err, HasSubstr("exists; continue that sweep with --resume"));
}

TEST_F(SweepEndToEnd, AFailingPointDoesNotStopTheSweepAndExitsWith3) {
  // 2^20 is over the CPU backend's max_seq_len: refused by the server (the
  // sweep's preflight leaves the problem's own limits to it).
  ProcessResult run = RunProcess(Sweep({"attention", "--seq", "1M,64", "--heads", "1", "--variant",
                                        "fused", "--budget-ms", "30", "--csv"}),
                                 120s);
  EXPECT_EQ(run.exit_code, 3) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 2u) << run.out;  // the header, seq 64's row
  EXPECT_THAT(lines[1], HasSubstr(",64,64,false,fused,"));
  EXPECT_THAT(run.err, HasSubstr("failed points:"));
  EXPECT_THAT(run.err, HasSubstr("seq_len=1048576"));
  EXPECT_THAT(run.err, HasSubstr("invalid request"));
  EXPECT_THAT(run.err, HasSubstr("2 points: 1 ok, 0 failed verification, 1 failed"));
}

TEST_F(SweepEndToEnd, RunsASpecFile) {
  const std::string spec = Path("spec.json");
  std::ofstream(spec) << R"({"op": "attention",
      "axes": {"seq": "2^5..2^6", "heads": 1, "causal": "both"},
      "variant": ["naive", "fused"], "timing": {"budget-ms": 20},
      "label": "lab-spec"})";
  ProcessResult run = RunProcess(
      {KBENCH_CLIENT_BIN, "--server", address(), "--json", "sweep", "--spec", spec}, 120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> lines = Lines(run.out);
  ASSERT_EQ(lines.size(), 4u);
  const nlohmann::json last = nlohmann::json::parse(lines[3]);
  EXPECT_EQ(last["request"]["attention"]["seq_len"], 64);
  EXPECT_EQ(last["request"]["attention"]["causal"], true);
  EXPECT_EQ(last["request"]["label"], "lab-spec");
}

TEST_F(SweepEndToEnd, CtrlCCancelsThePointInFlightAndLeavesAFileToResume) {
  const std::string out = Path("interrupted.csv");
  // Each point samples for 2 s: SIGINT comes while the second is in flight.
  ChildProcess run(Sweep({"vector-add", "--n", "1000,2000,3000", "--variant", "naive,vectorized",
                          "--min-time-ms", "2000", "--budget-ms", "2000", "--min-samples", "100000",
                          "--max-samples", "100000", "--label", "lab-int", "--out", out}));
  ASSERT_TRUE(run.WaitForOutput("[1/3]", 60s, /*from_stderr=*/true)) << run.err();
  run.Signal(SIGINT);
  EXPECT_EQ(run.Wait(10s), 130) << run.err();
  EXPECT_THAT(run.err(), HasSubstr("interrupted; the point in flight was cancelled"));
  const std::vector<std::string> lines = Lines(ReadFile(out));
  ASSERT_EQ(lines.size(), 3u) << ReadFile(out);  // the header, point 1

  ProcessResult resumed =
      RunProcess(Sweep({"vector-add", "--n", "1000,2000,3000", "--variant", "naive,vectorized",
                        "--budget-ms", "30", "--label", "lab-int", "--resume", out}),
                 120s);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("resume: 1 of 3 points"));
  EXPECT_EQ(Lines(ReadFile(out)).size(), 7u);
}

TEST_F(SweepEndToEnd, AnUnreachableServerStopsTheSweepWithExitCode3) {
  ProcessResult run = RunProcess({KBENCH_CLIENT_BIN, "--server", "127.0.0.1:1", "sweep",
                                  "vector-add", "--n", "1000,2000,3000"},
                                 60s);
  EXPECT_EQ(run.exit_code, 3) << run.err;
  // Asking what the server offers, before the first point, finds it gone.
  EXPECT_THAT(run.err, HasSubstr("cannot reach server at 127.0.0.1:1"));
}

TEST_F(SweepEndToEnd, AnImpossibleSweepIsRefusedBeforeAnyPointRunsOrAFileIsWritten) {
  // The CPU backend runs attention in fp32 only.
  const std::string out = Path("fp16.csv");
  ProcessResult run =
      RunProcess(Sweep({"attention", "--seq", "64,128,256", "--heads", "1", "--dtype", "fp16",
                        "--variant", "naive,fused", "--out", out}),
                 120s);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("3 of the sweep's 3 points cannot run on this server"));
  EXPECT_THAT(run.err, HasSubstr("seq_len=128"));
  EXPECT_THAT(run.err, HasSubstr("does not run fp16"));
  EXPECT_FALSE(std::filesystem::exists(out)) << "a header-only file was left";
}

TEST_F(SweepEndToEnd, AnOutFileWithOnlyAHeaderIsNoObstacle) {
  const std::string out = Path("header-only.csv");
  {
    ProcessResult header = RunProcess({KBENCH_CLIENT_BIN, "--server", address(), "--csv", "--quiet",
                                       "vector-add", "--n", "64", "--budget-ms", "30"},
                                      120s);
    ASSERT_EQ(header.exit_code, 0) << header.err;
    std::ofstream(out) << Lines(header.out)[0] << "\n";
  }
  ProcessResult run = RunProcess(Sweep(VectorAdd("1000", {"--out", out})), 120s);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Lines(ReadFile(out)).size(), 3u) << ReadFile(out);  // the header, two rows
}

}  // namespace
}  // namespace kbench
