// Learners' kernels run on a real CUDA device: each compiled by the
// worker's compiler (kbench-compile: NVRTC, nvJitLink) and run by the
// runner as a variant after the built-ins, poisoned, verified by the op's
// verifier and timed in the same rounds. The starter kernels of
// docs/examples/kernels verify; a kernel that writes nothing or wrong
// values fails verification; a launch over the function's or the device's
// limits is INVALID_ARGUMENT before anything runs; an illegal address ends
// its run with the CUDA error and leaves the device unhealthy (in a child
// process: the context is lost for good). Skipped where no CUDA device is
// present.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/common/status_macros.h"
#include "server/worker/backends/cuda/printf_capture.h"
#include "server/worker/compile/kernel_compiler.h"
#include "server/worker/learner_kernels.h"
#include "server/worker/runner.h"
#include "tests/cuda_device_test.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string HelperPath() {
  const std::string beside = worker::compile::DefaultCompileHelper();
  if (access(beside.c_str(), X_OK) == 0) return beside;
  return KBENCH_COMPILE_HELPER;
}

worker::compile::KernelCompiler& Compiler() {
  static worker::compile::KernelCompiler compiler([] {
    worker::compile::CompilerOptions options;
    options.helper = HelperPath();
    return options;
  }());
  return compiler;
}

// A file of the repository, from the working directory (the repository's
// root on the device machine) or the source tree.
std::string ReadRepoFile(const std::string& path) {
  for (const std::string& root : {std::string("./"), std::string(KBENCH_SOURCE_DIR) + "/"}) {
    std::ifstream in(root + path);
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  ADD_FAILURE() << path << " not found";
  return "";
}

// A starter of docs/examples/kernels.
std::string ReadStarter(const std::string& file) {
  return ReadRepoFile("docs/examples/kernels/" + file);
}

v1::KernelSource Kernel(const std::string& name, const std::string& entry, std::string source,
                        const std::string& grid, const std::string& block,
                        const std::string& smem = "") {
  v1::KernelSource k;
  k.set_name(name);
  k.set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
  k.set_source(std::move(source));
  k.set_entry(entry);
  k.mutable_launch()->set_grid(grid);
  k.mutable_launch()->set_block(block);
  k.mutable_launch()->set_shared_memory_bytes(smem);
  return k;
}

// The launch specs are the starters' own `// kbench:` lines.
v1::KernelSource VectorAddNaive() {
  return Kernel("vector_add_naive.cu", "vector_add_naive", ReadStarter("vector_add_naive.cu"),
                "cdiv(n,256)", "256");
}
v1::KernelSource VectorAddVectorized() {
  return Kernel("vector_add_vectorized.cu", "vector_add_vectorized",
                ReadStarter("vector_add_vectorized.cu"), "min(cdiv(n,1024),65536)", "256");
}

class LearnerKernels : public CudaDeviceTest {
 protected:
  // Compiles `kernels` into `problem` as the worker does, and runs it.
  static absl::Status Run(Problem problem, const std::vector<v1::KernelSource>& kernels,
                          testing::RecordingSink& sink, TimingPlan plan = ShortPlan()) {
    for (const v1::KernelSource& k : kernels) *problem.request.add_kernels() = k;
    KBENCH_ASSIGN_OR_RETURN(problem.kernels, worker::CompileLearnerKernels(problem, Compiler()));
    AdmittedRun run;
    run.problem = std::move(problem);
    run.plan = plan;
    return worker::RunJob(*device_, run, "learner-run", sink);
  }

  // Runs `kernel` in a child process of its own (the context it breaks is
  // lost for good), which must end its run with a CUDA error matching
  // `error` and leave the device unhealthy; then this process's device,
  // untouched, runs the naive starter, which verifies.
  static void ExpectAStickyErrorThenAVerifiedRun(const v1::KernelSource& kernel,
                                                 const std::string& error) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
          testing::RecordingSink sink;
          const absl::Status status =
              Run(MakeVectorAddProblem(4096, 3, {proto::ops::kVectorAddNaive}), {kernel}, sink);
          std::fprintf(stderr, "status: %s healthy: %d\n", status.ToString().c_str(),
                       int(device_->Healthy()));
          std::_Exit(!status.ok() && !device_->Healthy() ? 42 : 1);
        },
        ::testing::ExitedWithCode(42), error + ".*healthy: 0");
    testing::RecordingSink sink;
    const absl::Status status =
        Run(MakeVectorAddProblem(4096, 3, {proto::ops::kVectorAddNaive}), {VectorAddNaive()}, sink);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_TRUE(sink.events().back().summary().all_verified());
  }

  static std::map<std::string, v1::VariantResult> Results(const testing::RecordingSink& sink) {
    std::map<std::string, v1::VariantResult> results;
    for (const v1::RunEvent& event : sink.events())
      if (event.has_variant_result())
        results[event.variant_result().variant()] = event.variant_result();
    return results;
  }
};

TEST_F(LearnerKernels, VectorAddStartersVerifyBesideTheBuiltIns) {
  testing::RecordingSink sink;
  const absl::Status status = Run(MakeVectorAddProblem((int64_t(1) << 20) + 3, 7),
                                  {VectorAddNaive(), VectorAddVectorized()}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const std::vector<v1::RunEvent> events = sink.events();
  ASSERT_TRUE(events.front().has_started());
  EXPECT_THAT(std::vector<std::string>(events.front().started().variants().begin(),
                                       events.front().started().variants().end()),
              ::testing::ElementsAre("naive", "vectorized", "vector_add_naive.cu",
                                     "vector_add_vectorized.cu"));
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 4u);
  for (const auto& [name, result] : results) {
    EXPECT_TRUE(result.verification().passed()) << name << ": " << result.verification().failure();
    EXPECT_EQ(result.verification().elements_checked(), (uint64_t(1) << 20) + 3) << name;
    EXPECT_GE(result.stats().samples(), 6u) << name;
    EXPECT_GT(result.stats().median_ms(), 0) << name;
  }
  EXPECT_THAT(results.at("vector_add_naive.cu").config(),
              AllOf(HasSubstr("grid 4097x1x1 block 256x1x1"), HasSubstr("registers"),
                    HasSubstr("occupancy")));
  ASSERT_TRUE(events.back().has_summary());
  EXPECT_TRUE(events.back().summary().all_verified());
  // Each variant against the baseline, then each kernel against the other
  // built-in.
  const v1::Summary& summary = events.back().summary();
  ASSERT_EQ(summary.speedups_size(), 5);
  EXPECT_EQ(summary.speedups(2).variant(), "vector_add_vectorized.cu");
  EXPECT_EQ(summary.speedups(2).baseline(), "naive");
  EXPECT_EQ(summary.speedups(3).variant(), "vector_add_naive.cu");
  EXPECT_EQ(summary.speedups(3).baseline(), "vectorized");
  EXPECT_EQ(summary.speedups(4).variant(), "vector_add_vectorized.cu");
  EXPECT_EQ(summary.speedups(4).baseline(), "vectorized");
  EXPECT_GT(summary.speedups(4).rounds(), 0u);
  // How the server compiled each kernel; nothing of it for a built-in.
  EXPECT_GT(results.at("vector_add_naive.cu").compile().registers_per_thread(), 0u);
  EXPECT_THAT(results.at("vector_add_naive.cu").compile().arch(), HasSubstr("sm_"));
  EXPECT_FALSE(results.at("naive").has_compile());
  for (const auto& [name, result] : results)
    std::printf("[ learner  ] vector_add n=2^20+3 %-26s median %.4f ms  %s\n", name.c_str(),
                result.stats().median_ms(), result.config().c_str());
}

TEST_F(LearnerKernels, AttentionStartersVerifyInEachDtype) {
  struct Case {
    kernels::AttentionShape shape;
    kernels::DType dtype;
  };
  auto shape = [](int b, int h, int n, int d, bool causal) {
    kernels::AttentionShape s;
    s.batch = b;
    s.heads = h;
    s.seq_len = n;
    s.head_dim = d;
    s.causal = causal;
    return s;
  };
  for (const Case& c : {Case{shape(1, 2, 70, 64, false), kernels::DType::kFp32},
                        Case{shape(2, 1, 33, 128, true), kernels::DType::kFp16},
                        Case{shape(1, 4, 256, 64, true), kernels::DType::kBf16},
                        Case{shape(2, 2, 130, 128, false), kernels::DType::kFp8}}) {
    SCOPED_TRACE(kernels::DTypeName(c.dtype));
    testing::RecordingSink sink;
    const absl::Status status =
        Run(MakeAttentionProblem(c.shape, c.dtype, 11, {proto::ops::kAttentionNaive}),
            {Kernel("attention_naive.cu", "attention_naive", ReadStarter("attention_naive.cu"),
                    "cdiv(B*H*N,4)", "128"),
             Kernel("attention_tiled.cu", "attention_tiled", ReadStarter("attention_tiled.cu"),
                    "cdiv(N,8),B*H", "256", "128*d")},
            sink);
    ASSERT_TRUE(status.ok()) << status;
    const auto results = Results(sink);
    ASSERT_EQ(results.size(), 3u);
    for (const auto& [name, result] : results) {
      EXPECT_TRUE(result.verification().passed())
          << name << ": " << result.verification().failure();
      std::printf(
          "[ learner  ] attention %s B=%lld H=%lld N=%lld d=%lld%s %-20s median %.4f ms "
          "max abs error %.3g  %s\n",
          kernels::DTypeName(c.dtype), (long long)c.shape.batch, (long long)c.shape.heads,
          (long long)c.shape.seq_len, (long long)c.shape.head_dim, c.shape.causal ? " causal" : "",
          name.c_str(), result.stats().median_ms(), result.verification().max_abs_error(),
          result.config().c_str());
    }
    EXPECT_TRUE(sink.events().back().summary().all_verified());
  }
}

// fp8 inputs are E4M3 values times KBENCH_FP8_SCALE: the naive starter with
// the scale left out (scores 2^16 too large, V 2^8) fails, beside the
// starter as written and the built-in naive, which verify.
TEST_F(LearnerKernels, AnFp8KernelThatLeavesOutTheInputScaleFailsVerification) {
  kernels::AttentionShape shape;
  shape.batch = 1;
  shape.heads = 2;
  shape.seq_len = 96;
  shape.head_dim = 64;
  const std::string starter = ReadStarter("attention_naive.cu");
  const std::string scaled = "return float(x) * KBENCH_FP8_SCALE;";
  ASSERT_NE(starter.find(scaled), std::string::npos);
  std::string unscaled = starter;
  unscaled.replace(unscaled.find(scaled), scaled.size(), "return float(x);");
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeAttentionProblem(shape, kernels::DType::kFp8, 5, {proto::ops::kAttentionNaive}),
          {Kernel("scaled.cu", "attention_naive", starter, "cdiv(B*H*N,4)", "128"),
           Kernel("unscaled.cu", "attention_naive", unscaled, "cdiv(B*H*N,4)", "128")},
          sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results.at("naive").verification().passed())
      << results.at("naive").verification().failure();
  EXPECT_TRUE(results.at("scaled.cu").verification().passed())
      << results.at("scaled.cu").verification().failure();
  EXPECT_FALSE(results.at("unscaled.cu").verification().passed());
  std::printf("[ fp8      ] without the scale: %s\n",
              results.at("unscaled.cu").verification().failure().c_str());
}

TEST_F(LearnerKernels, AKernelThatWritesNothingOrWrongValuesFailsVerification) {
  const std::string params = "(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n)";
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(100000, 3, {proto::ops::kVectorAddNaive}),
          {Kernel("lazy.cu", "lazy", "extern \"C\" __global__ void lazy" + params + " {}",
                  "cdiv(n,256)", "256"),
           Kernel("minus.cu", "minus",
                  "extern \"C\" __global__ void minus" + params +
                      " { long long i = blockIdx.x * 256ll + threadIdx.x;"
                      " if (i < n) c[i] = a[i] - b[i]; }",
                  "cdiv(n,256)", "256"),
           // Leaves the last element unwritten.
           Kernel("short.cu", "short_by_one",
                  "extern \"C\" __global__ void short_by_one" + params +
                      " { long long i = blockIdx.x * 256ll + threadIdx.x;"
                      " if (i < n - 1) c[i] = a[i] + b[i]; }",
                  "cdiv(n,256)", "256")},
          sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results.at("naive").verification().passed());
  EXPECT_FALSE(results.at("lazy.cu").verification().passed());
  EXPECT_EQ(results.at("lazy.cu").verification().non_finite(), 100000u);
  EXPECT_FALSE(results.at("minus.cu").verification().passed());
  EXPECT_GT(results.at("minus.cu").verification().elements_over_tolerance(), 0u);
  EXPECT_FALSE(results.at("short.cu").verification().passed());
  EXPECT_EQ(results.at("short.cu").verification().non_finite(), 1u);
  EXPECT_FALSE(sink.events().back().summary().all_verified());
}

// Tricks from the reward-hack reports of kernel leaderboards: each is
// caught by verification or refused before it runs.
TEST_F(LearnerKernels, AKernelThatWorksOnlyOnItsFirstLaunchFailsVerification) {
  // Every block of the first launch computes (the flag is set only after
  // the last block of that launch finishes); every later launch returns at
  // once, leaving the output of whichever launch wrote last.
  const std::string source =
      "__device__ unsigned int finished_blocks;\n"
      "__device__ volatile int first_launch_done;\n"
      "extern \"C\" __global__ void first_only(const kbench_t* a, const kbench_t* b,\n"
      "                                         kbench_t* c, long long n) {\n"
      "  if (first_launch_done) return;\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n"
      "  if (i < n) c[i] = a[i] + b[i];\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) {\n"
      "    __threadfence();\n"
      "    if (atomicAdd(&finished_blocks, 1u) == gridDim.x - 1) first_launch_done = 1;\n"
      "  }\n"
      "}\n";
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(100000, 5, {proto::ops::kVectorAddNaive}),
          {Kernel("first_only.cu", "first_only", source, "cdiv(n,256)", "256")}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results.at("naive").verification().passed());
  EXPECT_FALSE(results.at("first_only.cu").verification().passed())
      << "a kernel that skipped its timed launches verified";
  std::printf("[ exploit  ] first launch only: %s\n",
              results.at("first_only.cu").verification().failure().c_str());
}

// The module is loaded again before every timed round, so its globals
// start afresh: a kernel right on its first two launches since its module
// was loaded (its check launch and warm-up; then, each round, its untimed
// launch and the timed one) and wrong after them verifies. Loaded once per
// run, its third launch, the first timed one, would write zeros.
TEST_F(LearnerKernels, ItsModuleIsLoadedAgainBeforeEveryRoundSoItsGlobalsStartAfresh) {
  const std::string source =
      "__device__ unsigned char launches[4096];\n"
      "extern \"C\" __global__ void fresh(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                    long long n) {\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n"
      "  if (i >= n || i >= 4096) return;\n"
      "  const unsigned char seen = launches[i];\n"
      "  launches[i] = seen < 2 ? seen + 1 : 2;\n"
      "  c[i] = seen < 2 ? a[i] + b[i] : kbench_t(0);\n"
      "}\n";
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(4096, 5, {proto::ops::kVectorAddNaive}),
          {Kernel("fresh.cu", "fresh", source, "cdiv(n,256)", "256")}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  const v1::VariantResult& fresh = results.at("fresh.cu");
  EXPECT_TRUE(fresh.verification().passed())
      << "its globals kept their values across rounds: " << fresh.verification().failure();
  EXPECT_GE(fresh.verification().checked_runs(), 3u);  // the check, the first and last rounds
  EXPECT_GE(fresh.stats().samples(), 3u);
}

// In hot mode the graph of a learner's kernel launches its module's
// function: it is captured again after every reload, and the samples
// verify.
TEST_F(LearnerKernels, HotSamplesOfALearnersKernelSurviveItsModuleLoadedAgainEveryRound) {
  TimingPlan plan = ShortPlan();
  plan.mode = v1::TIMING_MODE_HOT;
  plan.min_samples = 5;
  testing::RecordingSink sink;
  const absl::Status status = Run(MakeVectorAddProblem(1 << 20, 5, {proto::ops::kVectorAddNaive}),
                                  {VectorAddNaive()}, sink, plan);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  const v1::VariantResult& learner = results.at("vector_add_naive.cu");
  EXPECT_TRUE(learner.verification().passed()) << learner.verification().failure();
  EXPECT_GE(learner.stats().samples(), 5u);
  EXPECT_GT(learner.stats().median_ms(), 0);
  std::printf(
      "[ hot      ] vector_add_naive.cu, n = 2^20, reloaded each round: median %.4f ms, "
      "naive %.4f ms\n",
      learner.stats().median_ms(), results.at("naive").stats().median_ms());
}

TEST_F(LearnerKernels, AKernelThatWritesPastTheEndOfItsOutputFailsVerification) {
  // Every element right, and one more written after the last.
  const std::string source =
      "extern \"C\" __global__ void past_end(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                       long long n) {\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n"
      "  if (i < n) c[i] = a[i] + b[i];\n"
      "  if (i == 0) c[n] = (kbench_t)1.0f;  // bytes 00 00 80 3f in fp32\n"
      "}\n";
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(100000, 5,
                               {proto::ops::kVectorAddNaive, proto::ops::kVectorAddVectorized}),
          {Kernel("past_end.cu", "past_end", source, "cdiv(n,256)", "256")}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results.at("naive").verification().passed());
  EXPECT_TRUE(results.at("vectorized").verification().passed());
  EXPECT_FALSE(results.at("past_end.cu").verification().passed());
  EXPECT_THAT(results.at("past_end.cu").verification().failure(),
              HasSubstr("wrote past the end of the output: 4 bytes"));
  std::printf("[ exploit  ] write past the end: %s\n",
              results.at("past_end.cu").verification().failure().c_str());
}

// A kernel that keeps its result in an input, to copy it out on a later
// launch: its output is right, and it fails for the input it wrote. The
// inputs are drawn again after its check, so naive, after it in the
// round, meets them as drawn and verifies.
TEST_F(LearnerKernels, AKernelThatWritesIntoItsInputsFailsVerification) {
  const std::string source =
      "extern \"C\" __global__ void stash(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                    long long n) {\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  c[i] = a[i] + b[i];\n"
      "  const_cast<kbench_t*>(a)[i] = c[i];  // the result, kept for later\n"
      "}\n";
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(100000, 5, {proto::ops::kVectorAddNaive}),
          {Kernel("stash.cu", "stash", source, "cdiv(n,256)", "256")}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results.at("naive").verification().passed())
      << results.at("naive").verification().failure();
  EXPECT_FALSE(results.at("stash.cu").verification().passed());
  EXPECT_THAT(results.at("stash.cu").verification().failure(),
              HasSubstr("elements of a not as drawn"));
  std::printf("[ exploit  ] write into an input: %s\n",
              results.at("stash.cu").verification().failure().c_str());
}

// A cache keyed on the input pointers: the output of the inputs it first
// saw, kept in a global (16 KiB, under the bound) and copied out whenever
// the pointers are the same. Right until the inputs change: the checked
// rounds redraw them from fresh seeds, so it fails there.
TEST_F(LearnerKernels, ACacheKeyedOnTheInputPointersFailsOnInputsRedrawnForCheckedRounds) {
  const std::string source =
      "__device__ const kbench_t* seen;\n"
      "__device__ unsigned int finished_blocks;\n"
      "__device__ kbench_t kept[4096];\n"
      "extern \"C\" __global__ void keyed(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                    long long n) {\n"
      "  const bool cached = *(const kbench_t* volatile*)&seen == a;\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n"
      "  if (i < n && i < 4096) c[i] = cached ? kept[i] : (kept[i] = a[i] + b[i]);\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) {\n"
      "    __threadfence();\n"
      "    if (atomicAdd(&finished_blocks, 1u) == gridDim.x - 1) { seen = a; finished_blocks = 0; "
      "}\n"
      "  }\n"
      "}\n";
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(4096, 5, {proto::ops::kVectorAddNaive}),
          {Kernel("keyed.cu", "keyed", source, "cdiv(n,256)", "256")}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results.at("naive").verification().passed());
  EXPECT_GE(results.at("naive").verification().checked_runs(), 3u);
  EXPECT_FALSE(results.at("keyed.cu").verification().passed())
      << "a kernel that copied out an earlier launch's output verified";
  EXPECT_GT(results.at("keyed.cu").verification().elements_over_tolerance(), 0u);
  std::printf("[ exploit  ] cache keyed on the input pointers: %s (%u checked runs)\n",
              results.at("keyed.cu").verification().failure().c_str(),
              results.at("keyed.cu").verification().checked_runs());
}

// A kernel that works only where its output is poisoned (when it could be
// checked) and otherwise leaves the last launch's output: each thread
// looks at its own element first. Every timed sample of a run with a
// learner's kernel is poisoned, so it always works, and is timed doing so.
// A kernel that works only where its output is poisoned: anywhere else it
// returns at once, as if it had computed already.
v1::KernelSource Watcher() {
  return Kernel(
      "watcher.cu", "watcher",
      "extern \"C\" __global__ void watcher(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                      long long n) {\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n"
      "  if (i >= n || __float_as_uint(c[i]) != 0xffffffffu) return;  // not poisoned\n"
      "  c[i] = a[i] + b[i];\n"
      "}\n",
      "cdiv(n,256)", "256");
}

TEST_F(LearnerKernels, AKernelThatWorksOnlyOnAPoisonedOutputIsTimedDoingItsWork) {
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(1 << 24, 5, {proto::ops::kVectorAddNaive}), {Watcher()}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  const v1::VariantResult& watcher = results.at("watcher.cu");
  EXPECT_TRUE(watcher.verification().passed()) << watcher.verification().failure();
  // It does the work of naive: a launch that returned at once would take a
  // few microseconds against naive's tens.
  const double naive_ms = results.at("naive").stats().median_ms();
  EXPECT_GT(watcher.stats().median_ms(), 0.5 * naive_ms)
      << "watcher.cu skipped its work on unchecked samples";
  std::printf("[ exploit  ] work only on a poisoned output: median %.4f ms, naive %.4f ms\n",
              watcher.stats().median_ms(), naive_ms);
}

// Hot mode replays K launches in one graph; in a run with a learner's
// kernel each is preceded by a poison of the output, so none meets the
// output of the launch before it. Without that, launches 2..K of the
// watcher would only read the output (a third of naive's traffic).
TEST_F(LearnerKernels, HotLaunchesOfALearnersRunEachMeetAPoisonedOutput) {
  TimingPlan plan = ShortPlan();
  plan.mode = v1::TIMING_MODE_HOT;
  plan.min_samples = 5;
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(1 << 24, 5, {proto::ops::kVectorAddNaive}), {Watcher()}, sink, plan);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_TRUE(sink.events().front().has_started());
  const std::string method = sink.events().front().started().timing_method();
  EXPECT_NE(method.find("poisoned before every launch"), std::string::npos) << method;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  const v1::VariantResult& watcher = results.at("watcher.cu");
  EXPECT_TRUE(watcher.verification().passed()) << watcher.verification().failure();
  const double naive_ms = results.at("naive").stats().median_ms();
  EXPECT_GT(watcher.stats().median_ms(), 0.75 * naive_ms)
      << "watcher.cu skipped its work on launches after the first of a hot graph";
  std::printf("[ exploit  ] hot, work only on a poisoned output: median %.4f ms, naive %.4f ms\n",
              watcher.stats().median_ms(), naive_ms);
}

// PTX as Triton writes it declares two hidden scratch pointers after the
// op's parameters; the launch passes them null (the kernel writes NaN
// otherwise) and the kernel verifies beside the built-in.
TEST_F(LearnerKernels, ATritonStyleKernelGetsItsHiddenPointersNullAndVerifies) {
  v1::KernelSource kernel =
      Kernel("add_kernel.ptx", "add_kernel", ReadRepoFile("tests/testdata/triton_style_add.ptx"),
             "cdiv(n,128)", "128");
  kernel.set_language(v1::KERNEL_LANGUAGE_PTX);
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem((1 << 20) + 3, 7, {proto::ops::kVectorAddNaive}), {kernel}, sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results.at("add_kernel.ptx").verification().passed())
      << results.at("add_kernel.ptx").verification().failure();
  std::printf(
      "[ learner  ] vector_add n=2^20+3 triton-style add_kernel.ptx median %.4f ms, "
      "naive %.4f ms\n",
      results.at("add_kernel.ptx").stats().median_ms(), results.at("naive").stats().median_ms());
}

TEST_F(LearnerKernels, NanOutputsAndAnUnlaunchedTailFailVerification) {
  const std::string params =
      "(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n) {\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n";
  testing::RecordingSink sink;
  const absl::Status status =
      Run(MakeVectorAddProblem(1000, 5, {proto::ops::kVectorAddNaive}),
          {Kernel("nan.cu", "not_a_number",
                  "extern \"C\" __global__ void not_a_number" + params +
                      "  if (i < n) c[i] = (kbench_t)__int_as_float(0x7fc00000);\n}\n",
                  "cdiv(n,256)", "256"),
           // Rounds the grid down: the last 1000 % 256 = 232 elements never run.
           Kernel("tail.cu", "no_tail",
                  "extern \"C\" __global__ void no_tail" + params +
                      "  if (i < n) c[i] = a[i] + b[i];\n}\n",
                  "n/256", "256")},
          sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results.at("naive").verification().passed());
  EXPECT_FALSE(results.at("nan.cu").verification().passed());
  EXPECT_EQ(results.at("nan.cu").verification().non_finite(), 1000u);
  EXPECT_FALSE(results.at("tail.cu").verification().passed());
  EXPECT_EQ(results.at("tail.cu").verification().non_finite(), 232u);
  std::printf("[ exploit  ] NaN outputs: %s\n[ exploit  ] partial tail: %s\n",
              results.at("nan.cu").verification().failure().c_str(),
              results.at("tail.cu").verification().failure().c_str());
}

// What a kernel prints comes back with its result (the worker captures
// stdout as this test does), cut at kMaxKernelOutputBytes; a flood is
// bounded by the device's printf buffer and the cut, and still verifies.
TEST_F(LearnerKernels, WhatAKernelPrintsComesBackWithItsResultCutAtItsBound) {
  const std::string params =
      "(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n) {\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n"
      "  if (i < n) c[i] = a[i] + b[i];\n";
  testing::RecordingSink sink;
  absl::Status status;
  {
    absl::StatusOr<std::unique_ptr<worker::backends::cuda::PrintfCapture>> capture =
        worker::backends::cuda::PrintfCapture::Start();
    ASSERT_TRUE(capture.ok()) << capture.status();
    status = Run(MakeVectorAddProblem(4096, 5, {proto::ops::kVectorAddNaive}),
                 {Kernel("hello.cu", "hello",
                         "extern \"C\" __global__ void hello" + params +
                             "  if (i == 0) printf(\"hello from %lld elements\\n\", n);\n}\n",
                         "cdiv(n,256)", "256"),
                  Kernel("flood.cu", "flood",
                         "extern \"C\" __global__ void flood" + params +
                             "  if (i < n) printf(\"element %lld of %lld\\n\", i, n);\n}\n",
                         "cdiv(n,256)", "256")},
                 sink);
  }
  ASSERT_TRUE(status.ok()) << status;
  const auto results = Results(sink);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results.at("naive").kernel_output().empty());
  const v1::VariantResult& hello = results.at("hello.cu");
  EXPECT_TRUE(hello.verification().passed());
  EXPECT_THAT(hello.kernel_output(), HasSubstr("hello from 4096 elements\n"));
  const std::string line = "hello from 4096 elements\n";
  EXPECT_EQ(hello.kernel_output_bytes() % line.size(), 0u);
  EXPECT_GE(hello.kernel_output_bytes(), 3 * line.size());  // check, warm-up, samples
  const v1::VariantResult& flood = results.at("flood.cu");
  EXPECT_TRUE(flood.verification().passed());
  EXPECT_EQ(flood.kernel_output().size(), worker::kMaxKernelOutputBytes);
  EXPECT_GT(flood.kernel_output_bytes(), worker::kMaxKernelOutputBytes);
  std::printf("[ exploit  ] printf flood: %llu bytes printed, %zu kept\n",
              (unsigned long long)flood.kernel_output_bytes(), flood.kernel_output().size());
}

TEST_F(LearnerKernels, ACacheOnTheDeviceHeapOrInALargeGlobalIsRefusedBeforeItRuns) {
  const std::string params =
      "(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n) {\n"
      "  long long i = blockIdx.x * 256ll + threadIdx.x;\n";
  for (const auto& [name, source, refusal] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"heap.cu",
            "__device__ kbench_t* saved;\n"
            "extern \"C\" __global__ void cached" +
                params +
                "  if (saved == nullptr) saved = (kbench_t*)malloc(n * sizeof(kbench_t));\n"
                "  if (i < n) c[i] = saved[i] = a[i] + b[i];\n}\n",
            "calls malloc"},
           {"global.cu",
            "__device__ kbench_t saved[1 << 22];\n"
            "extern \"C\" __global__ void cached" +
                params + "  if (i < n) c[i] = saved[i % (1 << 22)] = a[i] + b[i];\n}\n",
            "at most 65536"}}) {
    testing::RecordingSink sink;
    const absl::Status status = Run(MakeVectorAddProblem(100000, 5, {proto::ops::kVectorAddNaive}),
                                    {Kernel(name, "cached", source, "cdiv(n,256)", "256")}, sink);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name << ": " << status;
    EXPECT_THAT(status.message(), HasSubstr(refusal)) << name;
  }
}

TEST_F(LearnerKernels, ALaunchOverTheDevicesLimitsIsInvalidArgument) {
  const std::string params = "(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n)";
  testing::RecordingSink sink;
  absl::Status status =
      Run(MakeVectorAddProblem(4096, 3, {proto::ops::kVectorAddNaive}),
          {Kernel("bounded.cu", "bounded",
                  "extern \"C\" __global__ void __launch_bounds__(256) bounded" + params + " {}",
                  "cdiv(n,1024)", "1024")},
          sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("kernels[0] 'bounded.cu'"), HasSubstr("1024 threads per block"),
                    HasSubstr("takes at most 256")));
  testing::RecordingSink sink2;
  status = Run(MakeVectorAddProblem(4096, 3, {proto::ops::kVectorAddNaive}),
               {Kernel("hungry.cu", "hungry",
                       "extern \"C\" __global__ void hungry" + params +
                           " { __shared__ float s[12288]; s[threadIdx.x] = a[threadIdx.x];"
                           " __syncthreads(); c[threadIdx.x] = s[(threadIdx.x + 1) % 256]; }",
                       "1", "256", "227*1024")},
               sink2);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), AllOf(HasSubstr("49152 bytes of static shared memory"),
                                      HasSubstr("MaxSharedMemoryPerBlockOptin")));
  // Nothing ran: the device is as healthy as before.
  EXPECT_TRUE(device_->Healthy());
}

const char kParams[] = "(const kbench_t* a, const kbench_t* b, kbench_t* c, long long n)";

TEST_F(LearnerKernels, AnIllegalAddressEndsTheRunWithTheCudaError) {
  ExpectAStickyErrorThenAVerifiedRun(
      Kernel("wild.cu", "wild",
             std::string("extern \"C\" __global__ void wild") + kParams +
                 " { c[threadIdx.x + (1ll << 40)] = 1.0f; }",
             "1", "32"),
      "cudaErrorIllegalAddress");
}

TEST_F(LearnerKernels, ATrapEndsTheRunWithTheCudaError) {
  ExpectAStickyErrorThenAVerifiedRun(Kernel("trap.cu", "trapped",
                                            std::string("extern \"C\" __global__ void trapped") +
                                                kParams + " { asm volatile(\"trap;\"); }",
                                            "1", "32"),
                                     "cudaError");
}

}  // namespace
}  // namespace kbench::server
