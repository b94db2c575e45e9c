// Learners' kernels end to end on a CPU server: the kbench binary against a
// real kbench-server, whose worker compiles in its kbench-compile sandbox.
// `kbench compile` prints the facts (table, --json), compiler errors as a
// compiler prints them, refusals naming the field; a run with --kernel is
// refused with FAILED_PRECONDITION: running needs a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
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

const std::string kStarters = KBENCH_SOURCE_DIR "/docs/examples/kernels/";

class CliKernels : public CpuServerSuite {
 protected:
  static ProcessResult Kbench(std::vector<std::string> args) {
    args.insert(args.begin(), {KBENCH_CLIENT_BIN, "--server", address()});
    return RunProcess(args, 120s);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  kbench::testing::TempDir dir_;
};

TEST_F(CliKernels, CompileOfAStarterPrintsWhatTheCompilerMade) {
  ProcessResult run = Kbench({"compile", kStarters + "vector_add_naive.cu"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("kernel 'vector_add_naive' compiled for sm_90a"));
  EXPECT_THAT(run.out, HasSubstr("registers per thread"));
  EXPECT_THAT(run.out, HasSubstr("spill stores / loads     0 / 0 bytes"));
}

TEST_F(CliKernels, TheTiledAttentionStarterCompilesForFp16) {
  ProcessResult run =
      Kbench({"compile", kStarters + "attention_tiled.cu", "--op", "attention", "--dtype", "fp16"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("attention kernel 'attention_tiled'"));
}

TEST_F(CliKernels, JsonCarriesTheFactsAndAResubmitIsCached) {
  const std::string path = Write("twice.cu",
                                 "extern \"C\" __global__ void twice(const kbench_t* a,\n"
                                 "    const kbench_t* b, kbench_t* c, long long n) {}\n");
  ProcessResult first = Kbench({"--json", "compile", path});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const nlohmann::json facts = nlohmann::json::parse(first.out);
  EXPECT_EQ(facts["arch"], "sm_90a");
  EXPECT_EQ(facts["entry"], "twice");
  EXPECT_EQ(facts["cached"], false);
  EXPECT_EQ(facts["source_sha256"].get<std::string>().size(), 64u);
  ProcessResult again = Kbench({"--json", "compile", path});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["cached"], true);
}

TEST_F(CliKernels, ACompileErrorIsPrintedAsACompilerPrintsIt) {
  const std::string path = Write("bad_add.cu",
                                 "extern \"C\" __global__ void bad_add(const kbench_t* a,\n"
                                 "    const kbench_t* b, kbench_t* c, long long n) {\n"
                                 "  c[0] = a[0] + y;\n"
                                 "}\n");
  ProcessResult run = Kbench({"compile", path});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("bad_add.cu:3:17: error: identifier \"y\" is undefined"));
  EXPECT_EQ(run.out, "");
}

TEST_F(CliKernels, AnIncludeOfAServerFileIsRefusedNamingThePath) {
  const std::string path = Write("peek.cu", "#include \"/etc/passwd\"\n");
  ProcessResult run = Kbench({"compile", path});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("'/etc/passwd' is not allowed"));
}

TEST_F(CliKernels, AWrongAbiSaysWhatTheOpExpects) {
  const std::string path =
      Write("short.cu", "extern \"C\" __global__ void short_add(float* c, int n) {}\n");
  ProcessResult run = Kbench({"compile", path, "--entry", "short_add"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("vector_add kernels take 4 parameters (8, 8, 8, 8 bytes)"));
}

TEST_F(CliKernels, ARunWithAKernelOnACpuServerSaysRunningNeedsAGpu) {
  ProcessResult run = Kbench({"vector-add", "--n", "1000", "--variant", "naive", "--kernel",
                              kStarters + "vector_add_naive.cu"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_THAT(run.err, HasSubstr("needs a GPU"));
  EXPECT_THAT(run.err, HasSubstr("kbench compile"));
}

TEST_F(CliKernels, ShowSourceGivesBackTheKernelAsStoredWithItsRun) {
  const std::string file = kStarters + "vector_add_naive.cu";
  ProcessResult run = Kbench({"vector-add", "--n", "1000", "--variant", "naive", "--label",
                              "source-lab", "--kernel", file});
  EXPECT_NE(run.exit_code, 0);  // refused on a CPU server, and stored so
  ProcessResult runs = Kbench({"--json", "runs", "--label", "source-lab"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  std::smatch id;
  ASSERT_TRUE(std::regex_search(runs.out, id, std::regex("\"run_id\": ?\"([^\"]+)\""))) << runs.out;
  ProcessResult shown = Kbench({"show", id[1].str(), "--source"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  std::ifstream source(file);
  const std::string text((std::istreambuf_iterator<char>(source)),
                         std::istreambuf_iterator<char>());
  EXPECT_THAT(shown.out, HasSubstr("// kernels[0] vector_add_naive.cu (CUDA_CPP, entry "));
  EXPECT_THAT(shown.out, HasSubstr(text));
}

}  // namespace
}  // namespace kbench
