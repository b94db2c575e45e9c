// Admission of learners' kernels (server/run/kernel_admission.h,
// kernel_includes.h): the limits, the options' allow-list, the #include
// check, the launch spec against the problem (EvaluateLaunch, the values
// the worker launches with), admission of a kernel to a run on a CUDA
// server, and the refusal on a CPU server (FAILED_PRECONDITION).
#include "server/run/kernel_admission.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ops/registry.h"
#include "server/run/kernel_includes.h"
#include "server/run/legacy_requests.h"
#include "server/run/limits.h"
#include "server/run/validation.h"

namespace kbench::server {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

v1::Limits CpuLimits() { return DefaultLimits(v1::DeviceInfo()); }

v1::KernelSource Kernel(std::string source = "extern \"C\" __global__ void my_add() {}") {
  v1::KernelSource k;
  k.set_name("my_add.cu");
  k.set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
  k.set_source(std::move(source));
  k.set_entry("my_add");
  k.mutable_launch()->set_grid("cdiv(n, 256)");
  k.mutable_launch()->set_block("256");
  return k;
}

v1::CompileKernelRequest Compile(v1::KernelSource kernel) {
  v1::CompileKernelRequest r;
  r.set_op("vector_add");
  *r.mutable_kernel() = std::move(kernel);
  return r;
}

absl::Status CheckCompile(v1::KernelSource kernel) {
  return CheckCompileRequest(Compile(std::move(kernel)), CpuLimits());
}

v1::RunRequest VectorAddRun(v1::KernelSource kernel, uint64_t n = 1000) {
  v1::RunRequest r;
  r.mutable_vector_add()->set_n(n);
  r.add_variants("naive");
  *r.add_kernels() = std::move(kernel);
  return r;
}

absl::Status Admitted(const v1::RunRequest& request, const std::string& backend = "cpu") {
  return Admit(request, CpuLimits(), backend, DefaultTiming()).status();
}

TEST(KernelAdmission, AStarterShapedKernelPasses) {
  EXPECT_TRUE(CheckCompile(Kernel()).ok()) << CheckCompile(Kernel());
}

TEST(KernelAdmission, SourceOverTheLimitIsRefusedNamingFieldAndLimit) {
  const absl::Status s = CheckCompile(Kernel(std::string(1 << 20, ' ')));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("kernel.source"), HasSubstr("262144"), HasSubstr("got 1048576")));
}

TEST(KernelAdmission, NameEntryAndLanguageAreChecked) {
  v1::KernelSource k = Kernel();
  k.set_name("../etc/x y");
  EXPECT_THAT(CheckCompile(k).message(), HasSubstr("kernel.name must be 1 to 64"));
  k = Kernel();
  k.set_entry(std::string(129, 'a'));
  EXPECT_THAT(CheckCompile(k).message(),
              HasSubstr("kernel.entry must be an identifier of 1 to 128"));
  k = Kernel();
  k.set_language(v1::KERNEL_LANGUAGE_UNSPECIFIED);
  EXPECT_THAT(CheckCompile(k).message(), HasSubstr("kernel.language"));
}

TEST(KernelAdmission, OnlyAllowListedOptionsPass) {
  v1::KernelSource k = Kernel();
  for (const char* ok : {"-O0", "-O3", "--use_fast_math", "-lineinfo", "--maxrregcount=64"})
    k.add_options(ok);
  EXPECT_TRUE(CheckCompile(k).ok()) << CheckCompile(k);
  for (const char* bad : {"-I/etc", "-rdc=true", "--maxrregcount=8", "--maxrregcount=x", "-G"}) {
    v1::KernelSource refused = Kernel();
    refused.add_options(bad);
    const absl::Status s = CheckCompile(refused);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("kernel.options[0]")) << bad;
  }
}

TEST(KernelAdmission, IncludeOfAnotherFileIsRefusedNamingThePath) {
  const absl::Status s = CheckCompile(Kernel("#include \"/etc/passwd\"\n"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("kernel.source: line 1"), HasSubstr("/etc/passwd"),
                                 HasSubstr("cuda_fp16.h")));
}

TEST(KernelIncludes, AllowedHeadersPass) {
  EXPECT_TRUE(CheckKernelIncludes("s", "#include <cuda_fp16.h>\n  #  include \"mma.h\"\n").ok());
  // The FP8 types and conversions (__nv_fp8_e4m3, __nv_cvt_float_to_fp8).
  EXPECT_TRUE(CheckKernelIncludes("s", "#include <cuda_fp8.h>\n").ok());
}

TEST(KernelIncludes, DirectivesHiddenBySplicesCommentsOrDigraphsAreFound) {
  for (const char* source : {
           "#inc\\\nlude \"/etc/passwd\"\n",
           "# /* c */ include </etc/passwd>\n",
           "%:include \"/etc/passwd\"\n",
           "const char* s = R\"(\n/*)\";\n#include \"/etc/passwd\"\n// */\n",
           "#include_next <stdio.h>\n",
           "#define F \"/etc/passwd\"\n#include F\n",
       }) {
    const absl::Status s = CheckKernelIncludes("kernel.source", source);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << source;
    EXPECT_THAT(s.message(), HasSubstr("is not allowed")) << source;
  }
  EXPECT_THAT(CheckKernelIncludes("f", "#if __has_include(\"/etc/shadow\")\n#endif").message(),
              HasSubstr("__has_include"));
}

TEST(KernelAdmission, LaunchSpecSyntaxIsCheckedAtCompile) {
  v1::KernelSource k = Kernel();
  k.mutable_launch()->set_grid("cdiv(N, 256)");
  EXPECT_THAT(CheckCompile(k).message(),
              AllOf(HasSubstr("kernel.launch.grid"), HasSubstr("unknown size 'N' at position 6")));
}

TEST(KernelAdmission, CompileOfAnUnknownOpOrDtypeIsRefused) {
  v1::CompileKernelRequest r = Compile(Kernel());
  r.set_op("matmul");
  EXPECT_THAT(CheckCompileRequest(r, CpuLimits()).message(),
              HasSubstr("no kernel ABI for 'matmul'"));
  r.set_op("vector_add");
  r.set_dtype(v1::DTYPE_FP16);
  EXPECT_THAT(CheckCompileRequest(r, CpuLimits()).message(),
              HasSubstr("dtype fp16 is not taken by vector_add kernels"));
}

TEST(KernelAdmission, RunWithAKernelOnACpuServerNeedsAGpu) {
  const absl::Status s = Admitted(VectorAddRun(Kernel()));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("needs a GPU"), HasSubstr("kbench compile")));
}

TEST(KernelAdmission, RunWithAKernelOnACudaServerIsAdmittedWithTheKernel) {
  absl::StatusOr<AdmittedRun> run =
      Admit(VectorAddRun(Kernel()), CpuLimits(), "cuda", DefaultTiming());
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->problem.request.kernels_size(), 1);
  EXPECT_EQ(run->problem.request.kernels(0).name(), "my_add.cu");
  // Compiled by the worker, not by admission: no LearnerKernel yet, and the
  // variants are the built-ins.
  EXPECT_TRUE(run->problem.kernels.empty());
  EXPECT_EQ(run->problem.VariantCount(), 1u);
}

TEST(KernelAdmission, LearnerKernelsAreVariantsAfterTheBuiltIns) {
  absl::StatusOr<AdmittedRun> run =
      Admit(VectorAddRun(Kernel()), CpuLimits(), "cuda", DefaultTiming());
  ASSERT_TRUE(run.ok()) << run.status();
  LearnerKernel kernel;
  kernel.name = "my_add.cu";
  run->problem.kernels.push_back(kernel);
  ASSERT_EQ(run->problem.VariantCount(), 2u);
  EXPECT_EQ(run->problem.VariantName(0), "naive");
  EXPECT_EQ(run->problem.VariantName(1), "my_add.cu");
}

TEST(KernelAdmission, EvaluateLaunchGivesTheValuesTheWorkerLaunchesWith) {
  v1::KernelSource k = Kernel();
  k.mutable_launch()->set_grid("min(cdiv(n,1024),65536), 2");
  k.mutable_launch()->set_block("128,2");
  k.mutable_launch()->set_shared_memory_bytes("n*4");
  absl::StatusOr<LaunchValues> v =
      EvaluateLaunch("kernels[0]", k, *proto::ops::AbiOf("vector_add"), VectorAddRun(k, 5000));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->grid, (std::array<int64_t, 3>{5, 2, 1}));
  EXPECT_EQ(v->block, (std::array<int64_t, 3>{128, 2, 1}));
  EXPECT_EQ(v->shared_memory_bytes, 20000);

  v1::RunRequest attention;
  attention.mutable_attention()->set_batch(2);
  attention.mutable_attention()->set_heads(3);
  attention.mutable_attention()->set_seq_len(70);
  attention.mutable_attention()->set_head_dim(64);
  k.mutable_launch()->set_grid("cdiv(N,8),B*H");
  k.mutable_launch()->set_block("256");
  k.mutable_launch()->set_shared_memory_bytes("128*d");
  v = EvaluateLaunch("kernels[0]", k, *proto::ops::AbiOf("attention"), attention);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->grid, (std::array<int64_t, 3>{9, 6, 1}));
  EXPECT_EQ(v->block, (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(v->shared_memory_bytes, 8192);
}

TEST(KernelAdmission, RunLimitsComeBeforeThePrecondition) {
  v1::RunRequest r = VectorAddRun(Kernel());
  for (int i = 0; i < 4; ++i) {
    v1::KernelSource k = Kernel();
    k.set_name("k" + std::to_string(i) + ".cu");
    *r.add_kernels() = k;
  }
  EXPECT_THAT(Admitted(r).message(), HasSubstr("kernels: at most 4 per run"));

  v1::KernelSource builtin = Kernel();
  builtin.set_name("naive");
  EXPECT_THAT(Admitted(VectorAddRun(builtin)).message(), HasSubstr("built-in variant's name"));

  r = VectorAddRun(Kernel());
  *r.add_kernels() = Kernel();
  EXPECT_THAT(Admitted(r).message(), HasSubstr("kernels[1].name 'my_add.cu' is named twice"));
  // The same refusals on a CUDA server, where the kernels would run.
  EXPECT_THAT(Admitted(VectorAddRun(builtin), "cuda").message(),
              HasSubstr("built-in variant's name"));
  EXPECT_THAT(Admitted(r, "cuda").message(), HasSubstr("is named twice"));
}

TEST(KernelAdmission, LaunchValuesAreCheckedAgainstTheProblem) {
  v1::KernelSource k = Kernel();
  k.mutable_launch()->clear_grid();
  EXPECT_THAT(Admitted(VectorAddRun(k)).message(), HasSubstr("kernels[0].launch.grid is required"));
  k = Kernel();
  k.mutable_launch()->set_block("2048");
  EXPECT_THAT(
      Admitted(VectorAddRun(k)).message(),
      HasSubstr("kernels[0].launch.block.x must be from 1 to 1024 for this problem, got 2048"));
  k = Kernel();
  k.mutable_launch()->set_block("64, 32");
  EXPECT_THAT(Admitted(VectorAddRun(k)).message(),
              HasSubstr("at most 1024 threads per block, got 2048"));
  k = Kernel();
  k.mutable_launch()->set_grid("n - 1000");
  EXPECT_THAT(
      Admitted(VectorAddRun(k)).message(),
      HasSubstr("kernels[0].launch.grid.x must be from 1 to 2147483647 for this problem, got 0"));
  k = Kernel();
  k.mutable_launch()->set_shared_memory_bytes("1024*1024*1024");
  EXPECT_THAT(
      Admitted(VectorAddRun(k)).message(),
      HasSubstr("shared_memory_bytes must be from 0 to 232448 for this problem, got 1073741824"));
  EXPECT_EQ(Admitted(VectorAddRun(k), "cuda").code(), absl::StatusCode::kInvalidArgument);
}

TEST(KernelAdmission, TheOpSpecificRpcsCarryKernelsToAdmission) {
  v1::VectorAddRequest request;
  request.set_n(1000);
  *request.add_kernels() = Kernel();
  EXPECT_EQ(Admitted(ToRunRequest(request)).code(), absl::StatusCode::kFailedPrecondition);
  v1::AttentionRequest attention;
  attention.set_batch(1);
  attention.set_heads(1);
  attention.set_seq_len(64);
  attention.set_head_dim(64);
  *attention.add_kernels() = Kernel();
  EXPECT_EQ(ToRunRequest(attention).kernels_size(), 1);
}

}  // namespace
}  // namespace kbench::server
