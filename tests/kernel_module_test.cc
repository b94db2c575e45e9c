// What the worker reads from a compiled kernel without a GPU: the PTX's
// entries and parameter sizes against the op's ABI (ptx_abi.h), the linker's
// facts (link_info.h); the compile cache's bound (compile_cache.h); and the
// compiler's answer where the build has no compile helper.
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ops/kernel_abi.h"
#include "server/worker/compile/compile_cache.h"
#include "server/worker/compile/kernel_compiler.h"
#include "server/worker/compile/link_info.h"
#include "server/worker/compile/ptx_abi.h"

namespace kbench::server::worker::compile {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kPtx[] = R"(
//
// .entry in_a_comment(.param .u32 x)
.version 9.0
.target sm_90a
.address_size 64
	// .globl	vector_add_naive
.visible .entry vector_add_naive(
	.param .u64 vector_add_naive_param_0,
	.param .u64 .ptr .global .align 4 vector_add_naive_param_1,
	.param .u64 vector_add_naive_param_2,
	.param .u64 vector_add_naive_param_3
)
{
	ret;
}
.entry no_params
{
	ret;
}
.weak .entry with_struct(.param .align 8 .b8 s[16], .param .f32 f, .param .u8 flag)
{
	ret;
}
)";

TEST(PtxEntries, EntriesAndParameterSizesAreRead) {
  absl::StatusOr<std::vector<PtxEntry>> entries = ReadPtxEntries(kPtx);
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].name, "vector_add_naive");
  ASSERT_EQ((*entries)[0].parameters.size(), 4u);
  for (const PtxParameter& p : (*entries)[0].parameters) EXPECT_EQ(p.bytes, 8u);
  EXPECT_EQ((*entries)[1].name, "no_params");
  EXPECT_TRUE((*entries)[1].parameters.empty());
  ASSERT_EQ((*entries)[2].parameters.size(), 3u);
  EXPECT_EQ((*entries)[2].parameters[0].bytes, 16u);
  EXPECT_EQ((*entries)[2].parameters[1].bytes, 4u);
  EXPECT_EQ((*entries)[2].parameters[2].bytes, 1u);
}

TEST(PtxEntries, TheOpsAbiIsCheckedByCountAndSize) {
  const std::vector<PtxEntry> entries = *ReadPtxEntries(kPtx);
  EXPECT_TRUE(CheckEntryAbi(entries, "vector_add_naive", *proto::ops::AbiOf("vector_add")).ok());
  const absl::Status attention =
      CheckEntryAbi(entries, "vector_add_naive", *proto::ops::AbiOf("attention"));
  EXPECT_EQ(attention.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(attention.message(), AllOf(HasSubstr("takes 4 parameters (8, 8, 8, 8 bytes)"),
                                         HasSubstr("attention kernels take 10 parameters"),
                                         HasSubstr("float scale, int causal")));
  EXPECT_THAT(CheckEntryAbi(entries, "no_params", *proto::ops::AbiOf("vector_add")).message(),
              HasSubstr("'no_params' takes 0 parameters;"));
  EXPECT_THAT(CheckEntryAbi(entries, "missing", *proto::ops::AbiOf("vector_add")).message(),
              HasSubstr("its kernels: vector_add_naive, no_params, with_struct"));
  EXPECT_THAT(CheckEntryAbi({}, "missing", *proto::ops::AbiOf("vector_add")).message(),
              HasSubstr("the module has no kernel"));
}

// Triton appends two global pointers (its scratch) to every kernel: the op's
// parameters followed by exactly those two pass; other extras do not.
TEST(PtxEntries, TritonsHiddenScratchPointersMayFollowTheOpsParameters) {
  const std::string ptr = ".param .u64 .ptr .global .align 1 ";
  const auto entry = [&](const std::string& extra) {
    return absl::StrCat(".visible .entry add_kernel(", ptr, "p0, ", ptr, "p1, ", ptr,
                        "p2, .param .u64 p3", extra, ")\n{\n  ret;\n}\n");
  };
  const proto::ops::KernelAbi& abi = *proto::ops::AbiOf("vector_add");
  absl::StatusOr<std::vector<PtxEntry>> triton =
      ReadPtxEntries(entry(", " + ptr + "p4, " + ptr + "p5"));
  ASSERT_TRUE(triton.ok()) << triton.status();
  EXPECT_TRUE((*triton)[0].parameters[0].global_pointer);
  EXPECT_FALSE((*triton)[0].parameters[3].global_pointer);
  EXPECT_TRUE(CheckEntryAbi(*triton, "add_kernel", abi).ok());
  for (const std::string& extra :
       std::vector<std::string>{", " + ptr + "p4", ", .param .u64 p4, .param .u64 p5",
                                ", " + ptr + "p4, " + ptr + "p5, " + ptr + "p6"}) {
    absl::StatusOr<std::vector<PtxEntry>> entries = ReadPtxEntries(entry(extra));
    ASSERT_TRUE(entries.ok()) << entries.status();
    const absl::Status checked = CheckEntryAbi(*entries, "add_kernel", abi);
    EXPECT_EQ(checked.code(), absl::StatusCode::kInvalidArgument) << extra;
    EXPECT_THAT(checked.message(), HasSubstr("vector_add kernels take 4 parameters")) << extra;
  }
}

TEST(PtxEntries, AnUnterminatedListOrUnknownTypeIsAnError) {
  EXPECT_FALSE(ReadPtxEntries(".entry k(.param .u64 a").ok());
  EXPECT_THAT(ReadPtxEntries(".entry k(.param .weird a)").status().message(),
              HasSubstr("unknown type"));
}

TEST(PtxCalls, TheModulesExternalFunctionsAreReadAndOnlyPrintfAndAssertPass) {
  const std::string ptx =
      "// .extern .func commented_out\n"
      ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
      "\t.param .b64 vprintf_param_1\n)\n;\n"
      ".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0\n)\n;\n";
  EXPECT_THAT(ReadPtxExternalFunctions(ptx), ::testing::ElementsAre("vprintf", "__assertfail"));
  EXPECT_TRUE(CheckExternalCalls(ptx).ok());
  const std::string with_malloc =
      ptx + ".extern .func  (.param .b64 func_retval0) malloc\n(\n\t.param .b64 p\n)\n;\n";
  EXPECT_THAT(CheckExternalCalls(with_malloc).message(), HasSubstr("calls malloc"));
  EXPECT_THAT(CheckExternalCalls(".extern .func (.param .b32 r) cudaLaunchDeviceV2(.param .b64 "
                                 "a)\n;\n")
                  .message(),
              HasSubstr("dynamic parallelism"));
  EXPECT_THAT(CheckExternalCalls(".extern .func mystery()\n;\n").message(),
              HasSubstr("only printf and assert are linked"));
}

TEST(LinkInfo, TheEntrysFactsAreReadFromNvJitLinksInfoLog) {
  const std::string info =
      "ptxas info    : 64 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
      "ptxas info    : Function properties for other\n"
      "ptxas         .     8 bytes stack frame, 99 bytes spill stores, 99 bytes spill loads\n"
      "ptxas info    : Used 99 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'my_add' for 'sm_90a'\n"
      "ptxas info    : Function properties for my_add\n"
      "ptxas         .     16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 4096 bytes smem\n"
      "info    : Function properties for 'my_add':\n"
      "info    : used 40 registers, used 1 barriers, 16 stack, 5120 bytes smem, 560 bytes "
      "cmem[0], 16 bytes lmem\n";
  v1::CompileFacts facts;
  ReadLinkInfo(info, "my_add", facts);
  EXPECT_EQ(facts.registers_per_thread(), 40u);
  EXPECT_EQ(facts.spill_store_bytes(), 12u);
  EXPECT_EQ(facts.spill_load_bytes(), 8u);
  EXPECT_EQ(facts.static_shared_memory_bytes(), 4096u);
  EXPECT_EQ(facts.local_memory_bytes(), 16u);
  EXPECT_EQ(facts.global_memory_bytes(), 64u);
}

TEST(CompileCache, TheLeastRecentlyUsedEntryGoesFirst) {
  CompileCache cache(2);
  CompiledKernel facts;
  cache.Put("a", facts);
  cache.Put("b", absl::InvalidArgumentError("refused"));
  ASSERT_TRUE(cache.Find("a").has_value());  // a is now the most recent
  cache.Put("c", facts);
  EXPECT_TRUE(cache.Find("a").has_value());
  EXPECT_FALSE(cache.Find("b").has_value());
  ASSERT_TRUE(cache.Find("c").has_value());
}

TEST(KernelCompiler, WithoutItsHelperCompilingIsAFailedPreconditionNamingIt) {
  CompilerOptions options;
  options.helper = "/nonexistent/kbench-compile";
  KernelCompiler compiler(options);
  v1::CompileKernelRequest request;
  request.set_op("vector_add");
  request.mutable_kernel()->set_name("k.cu");
  request.mutable_kernel()->set_source("x");
  request.mutable_kernel()->set_entry("k");
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(request);
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(facts.status().message(),
              AllOf(HasSubstr("/nonexistent/kbench-compile"), HasSubstr("NVRTC")));
}

TEST(KernelCompiler, ArchitectureFollowsTheDevice) {
  v1::DeviceInfo cpu, h200, blackwell;
  h200.set_compute_capability("9.0");
  blackwell.set_compute_capability("10.0");
  EXPECT_EQ(ArchOf(cpu), "sm_90a");
  EXPECT_EQ(ArchOf(h200), "sm_90a");
  EXPECT_EQ(ArchOf(blackwell), "sm_100");
}

}  // namespace
}  // namespace kbench::server::worker::compile
