// Assignments end to end on a CPU server (no identities: the caller is the
// local admin): the kbench binary creates, lists, shows, edits and closes
// an assignment from a file, is refused naming the key or the problem for
// a bad one, reads an empty leaderboard and gradebook, and `kbench submit`
// is refused saying a learner's kernel needs a GPU (the GPU machine's
// tools/bench/course_check.py runs submissions; the Assignments service
// test scores them over a fake executor).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cpu_server_suite.h"
#include "tests/temp_dir.h"

namespace kbench {
namespace {

using ::kbench::testing::CpuServerSuite;
using ::kbench::testing::ProcessResult;
using ::kbench::testing::RunProcess;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr char kLab[] = R"(name: NAME
title: Vector add, faster than naive
due: 2030-01-01T00:00Z
problems:
  op: vector_add
  axes: {n: [2^10, 2^12]}
  variant: [naive, vectorized]
  timing: {budget-ms: 50}
)";

class CliAssignments : public CpuServerSuite {
 protected:
  static ProcessResult Kbench(std::vector<std::string> args) {
    args.insert(args.begin(), {KBENCH_CLIENT_BIN, "--server", address()});
    return RunProcess(args, 120s);
  }

  // An assignment file named `name`, with `text` (kLab by default).
  std::string Lab(const std::string& name, std::string text = kLab) {
    text.replace(text.find("NAME"), 4, name);
    const std::string path = dir_.path() + "/" + name + ".yaml";
    std::ofstream(path) << text;
    return path;
  }

  kbench::testing::TempDir dir_;
};

TEST_F(CliAssignments, AnInstructorCreatesListsShowsEditsAndClosesOne) {
  ProcessResult run = Kbench({"assignment", "create", Lab("lab1")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("created lab1: Vector add, faster than naive"));
  EXPECT_THAT(run.out, HasSubstr("built-ins beside each submission: naive, vectorized"));
  EXPECT_THAT(run.out, HasSubstr("2. n=4096"));

  run = Kbench({"assignment", "create", Lab("lab1")});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.err, HasSubstr("kbench assignment edit"));

  std::string edited = kLab;
  edited.replace(edited.find("Vector add, faster"), 18, "Vector add, edited!");
  run = Kbench({"assignment", "edit", Lab("lab1", edited)});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("replaced lab1: Vector add, edited!"));

  run = Kbench({"--json", "assignment", "show", "lab1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json shown = nlohmann::json::parse(run.out);
  EXPECT_EQ(shown["baselines"], nlohmann::json({"naive", "vectorized"}));
  EXPECT_EQ(shown["problems"].size(), 2u);
  EXPECT_EQ(shown["submissions_per_hour"], 6) << "the default";

  run = Kbench({"assignment", "list"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("lab1"));
  EXPECT_THAT(run.out, HasSubstr("open"));

  run = Kbench({"assignment", "close", "lab1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  run = Kbench({"assignment", "list"});
  EXPECT_THAT(run.out, HasSubstr("closed"));
  run = Kbench({"submit", "lab1", KBENCH_SOURCE_DIR "/docs/examples/kernels/vector_add_naive.cu"});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.err, HasSubstr("lab1 is closed"));
}

TEST_F(CliAssignments, ABadFileIsRefusedNamingTheKeyOrTheProblem) {
  std::string text = kLab;
  text += "colour: blue\n";
  ProcessResult run = Kbench({"assignment", "create", Lab("lab2", text)});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("line 9: colour: is not a key of an assignment"));

  text = kLab;
  text.replace(text.find("2^12"), 4, "2^40");
  run = Kbench({"assignment", "create", Lab("lab3", text)});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("problems[1]"));

  text = kLab;
  text.replace(text.find("  variant: [naive, vectorized]\n"), 31, "");
  run = Kbench({"assignment", "create", Lab("lab4", text)});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("problems.variant: missing"));

  run = Kbench({"assignment", "create", Lab("lab6"), "--submissions-per-hour", "0"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--submissions-per-hour: '0' is not a count from 1"));
  run = Kbench({"assignment", "create", Lab("lab6"), "--name", "lab6b", "--title", "From flags"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("created lab6b: From flags"));

  run = Kbench({"assignment", "create", "--name", "lab7", "--due", "7d", "--problems",
                "{op: vector_add, axes: {n: [2^10, 2^11]}, variant: [naive]}"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("created lab7"));
  EXPECT_THAT(run.out, HasSubstr("2. n=2048"));

  run = Kbench({"assignment", "show", "no-such-lab"});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.err, HasSubstr("no assignment \"no-such-lab\""));
}

TEST_F(CliAssignments, ASubmissionOnACpuServerIsRefusedSayingItNeedsAGpu) {
  ASSERT_EQ(Kbench({"assignment", "create", Lab("lab5")}).exit_code, 0);
  ProcessResult run =
      Kbench({"submit", "lab5", KBENCH_SOURCE_DIR "/docs/examples/kernels/vector_add_naive.cu"});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.err, HasSubstr("running a learner's kernel needs a GPU"));

  run = Kbench({"leaderboard", "lab5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("no submission counts yet"));
  run = Kbench({"--csv", "leaderboard", "lab5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "rank,tied,user,you,score_ms,score_ci_low_ms,score_ci_high_ms,speedup_naive,"
            "speedup_vectorized,attempts,last_attempt_unix_ms,late,devices\n");
  run = Kbench({"roster", "--gradebook"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("user,"));
  EXPECT_THAT(run.out, HasSubstr("lab5"));

  run = Kbench({"--csv", "assignment", "list"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--csv applies to leaderboard and roster"));
}

}  // namespace
}  // namespace kbench
