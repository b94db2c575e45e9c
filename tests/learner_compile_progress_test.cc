// A worker compiling a run's learners' kernels tells its supervisor, one
// step per kernel, before the run is prepared: the stall watchdog
// (Limits.max_stall_seconds) sees progress between compiles, each bounded
// by the sandbox's wall-clock limit, and does not take several slow
// compiles for a hung worker. Real compiles (NVRTC, nvJitLink: no GPU
// needed) on a fake device.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "proto/ops/vector_add/vector_add_op.h"
#include "server/worker/local_executor.h"
#include "tests/fake_device.h"
#include "tests/recording_sink.h"

namespace kbench::server {
namespace {

v1::KernelSource Add(const std::string& name) {
  v1::KernelSource kernel;
  kernel.set_name(name);
  kernel.set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
  kernel.set_entry("my_add");
  kernel.set_source(
      "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                    long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) c[i] = a[i] + b[i];\n"
      "}\n");
  kernel.mutable_launch()->set_grid("cdiv(n,256)");
  kernel.mutable_launch()->set_block("256");
  return kernel;
}

TEST(LearnerCompileProgress, EachKernelsCompileIsAStepBeforeThePreparation) {
  worker::compile::CompilerOptions options;
  options.helper = KBENCH_COMPILE_HELPER;
  worker::LocalExecutor executor(std::make_unique<testing::FakeDevice>(
                                     std::vector<std::pair<std::string, testing::FakeVariant>>{}),
                                 options);
  AdmittedRun run;
  run.problem.op = &proto::ops::VectorAddOp();
  run.problem.request.mutable_vector_add()->set_n(1000);
  run.problem.request.set_seed(42);
  *run.problem.request.add_kernels() = Add("one.cu");
  *run.problem.request.add_kernels() = Add("two.cu");
  run.problem.variants = {proto::ops::kVectorAddNaive};
  run.plan.warmup_runs = 1;
  run.plan.min_samples = 2;
  run.plan.max_samples = 6;
  run.plan.time_budget_ms = 1000;
  testing::RecordingSink sink;
  const absl::Status status = executor.Execute(run, "r", sink);
  ASSERT_TRUE(status.ok()) << status;
  const auto steps = sink.steps();
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(steps[0], std::pair(RunStep::kCompile, std::string("one.cu")));
  EXPECT_EQ(steps[1], std::pair(RunStep::kCompile, std::string("two.cu")));
  EXPECT_EQ(steps[2], std::pair(RunStep::kPrepare, std::string()));
}

}  // namespace
}  // namespace kbench::server
