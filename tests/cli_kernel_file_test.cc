// The CLI's side of learners' kernels: a kernel file with its `// kbench:`
// line and flags becomes a KernelSource; `kbench compile` and `--kernel`
// parse into their requests; NVRTC's log becomes a compiler's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client/command_line.h"
#include "client/compile_command.h"
#include "client/compiler_log.h"
#include "client/kernel_file.h"
#include "tests/temp_dir.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;

std::string WriteFile(const kbench::testing::TempDir& dir, const std::string& name,
                      const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::variant<CommandLine, ExitCode> Parse(std::vector<const char*> args, std::string* err_text) {
  args.insert(args.begin(), "kbench");
  std::ostringstream out, err;
  auto result = ParseCommandLine(static_cast<int>(args.size()), args.data(), out, err);
  if (err_text) *err_text = err.str();
  return result;
}

TEST(CompilerStyleLog, NvrtcLocationsBecomeFileLineColumn) {
  const std::string log =
      "my_add.cu(5): error: identifier \"x\" is undefined\n"
      "    if (i < n) c[i] = a[i] + b[i] + x;\n"
      "                                    ^\n"
      "\n"
      "1 error detected in the compilation of \"my_add.cu\".";
  EXPECT_EQ(CompilerStyleLog(log),
            "my_add.cu:5:35: error: identifier \"x\" is undefined\n"
            "    if (i < n) c[i] = a[i] + b[i] + x;\n"
            "                                    ^\n"
            "\n"
            "1 error detected in the compilation of \"my_add.cu\".");
}

TEST(CompilerStyleLog, WithoutACaretTheColumnIsLeftOut) {
  EXPECT_EQ(CompilerStyleLog("k.cu(12): warning #550-D: variable \"s\" was set\n"),
            "k.cu:12: warning #550-D: variable \"s\" was set\n");
  EXPECT_EQ(CompilerStyleLog("ptxas fatal   : Unresolved extern function 'f'"),
            "ptxas fatal   : Unresolved extern function 'f'");
}

TEST(KernelFile, TheKbenchLineGivesLaunchAndEntryAndFlagsWin) {
  kbench::testing::TempDir dir;
  const std::string path =
      WriteFile(dir, "my_add.cu",
                "// a kernel\n// kbench: grid=cdiv(n,1024) block=256 smem=0 entry=add\nint x;\n");
  absl::StatusOr<v1::KernelSource> kernel = ReadKernelFile(path, {});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ(kernel->name(), "my_add.cu");
  EXPECT_EQ(kernel->language(), v1::KERNEL_LANGUAGE_CUDA_CPP);
  EXPECT_EQ(kernel->entry(), "add");
  EXPECT_EQ(kernel->launch().grid(), "cdiv(n,1024)");
  EXPECT_EQ(kernel->launch().block(), "256");
  EXPECT_EQ(kernel->launch().shared_memory_bytes(), "0");
  KernelFlags flags;
  flags.launch.set_block("128");
  flags.entry = "other";
  kernel = ReadKernelFile(path, flags);
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(kernel->launch().block(), "128");
  EXPECT_EQ(kernel->entry(), "other");
  EXPECT_EQ(kernel->launch().grid(), "cdiv(n,1024)");
}

TEST(KernelFile, PtxByExtensionEntryByStemAndUnknownKeysAreNamed) {
  kbench::testing::TempDir dir;
  absl::StatusOr<v1::KernelSource> kernel =
      ReadKernelFile(WriteFile(dir, "my_add.ptx", ".version 9.0\n"), {});
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ(kernel->language(), v1::KERNEL_LANGUAGE_PTX);
  EXPECT_EQ(kernel->entry(), "my_add");
  absl::StatusOr<v1::KernelSource> bad =
      ReadKernelFile(WriteFile(dir, "k.cu", "// kbench: grd=1\n"), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown key 'grd'"));
  EXPECT_THAT(ReadKernelFile(dir.path() + "/missing.cu", {}).status().message(),
              HasSubstr("cannot read kernel file"));
}

TEST(ParseCommandLine, CompileReadsTheFileIntoItsRequest) {
  kbench::testing::TempDir dir;
  const std::string path = WriteFile(dir, "flash.cu", "// kbench: grid=cdiv(N,64),B*H\n");
  auto parsed = Parse({"compile", path.c_str(), "--op", "attention", "--dtype", "fp16", "-O", "2",
                       "--use-fast-math", "--maxrregcount", "128", "--csv"},
                      nullptr);
  const auto& line = std::get<CommandLine>(parsed);
  const auto& command = std::get<CompileCommand>(line.command);
  EXPECT_EQ(command.file, path);
  EXPECT_EQ(command.request.op(), "attention");
  EXPECT_EQ(command.request.dtype(), v1::DTYPE_FP16);
  EXPECT_EQ(command.request.kernel().launch().grid(), "cdiv(N,64),B*H");
  EXPECT_THAT(command.request.kernel().options(),
              ::testing::ElementsAre("-O2", "--use_fast_math", "--maxrregcount=128"));
  EXPECT_EQ(line.options.format, OutputFormat::kCsv);
}

TEST(ParseCommandLine, CompileRefusesAnUnknownOpAndAMissingFile) {
  std::string err;
  auto parsed = Parse({"compile", "/nonexistent/k.cu"}, &err);
  EXPECT_EQ(std::get<ExitCode>(parsed), ExitCode::kBadArguments);
  EXPECT_THAT(err, HasSubstr("cannot read kernel file /nonexistent/k.cu"));
  kbench::testing::TempDir dir;
  const std::string path = WriteFile(dir, "k.cu", "");
  parsed = Parse({"compile", path.c_str(), "--op", "matmul"}, &err);
  EXPECT_EQ(std::get<ExitCode>(parsed), ExitCode::kBadArguments);
  EXPECT_THAT(err, HasSubstr("must be vector-add or attention"));
}

TEST(ParseCommandLine, SeveralKernelsRideARunBesideTheVariants) {
  kbench::testing::TempDir dir;
  const std::string a = WriteFile(dir, "a.cu", "// kbench: grid=cdiv(n,256) block=256\n");
  const std::string b = WriteFile(dir, "b.cu", "");
  auto parsed = Parse({"vector-add", "--n", "1000", "--variant", "naive", "--kernel", a.c_str(),
                       "--kernel", b.c_str(), "--grid", "cdiv(n,128)"},
                      nullptr);
  const auto& request = std::get<v1::RunRequest>(std::get<CommandLine>(parsed).command);
  ASSERT_EQ(request.kernels_size(), 2);
  EXPECT_EQ(request.kernels(0).name(), "a.cu");
  EXPECT_EQ(request.kernels(0).launch().grid(), "cdiv(n,128)");
  EXPECT_EQ(request.kernels(0).launch().block(), "256");
  EXPECT_EQ(request.kernels(1).entry(), "b");
  EXPECT_EQ(request.variants(0), "naive");
}

TEST(CompileOutput, CsvAndJsonCarryTheFacts) {
  CompileCommand command;
  command.file = "k/my_add.cu";
  command.request.set_op("vector_add");
  command.request.mutable_kernel()->set_name("my_add.cu");
  v1::CompileFacts facts;
  facts.set_arch("sm_90a");
  facts.set_entry("my_add");
  facts.set_registers_per_thread(12);
  facts.set_spill_store_bytes(4);
  facts.set_compile_ms(412.5);
  const std::string csv = FormatCompileCsv(command, facts);
  EXPECT_THAT(csv, HasSubstr("kernel,op,dtype,arch,entry,registers_per_thread,spill_store_bytes"));
  EXPECT_THAT(csv, HasSubstr("my_add.cu,vector_add,fp32,sm_90a,my_add,12,4,"));
  const std::string json = FormatCompileJson(command, facts);
  EXPECT_THAT(json, HasSubstr("\"registers_per_thread\": 12"));
  EXPECT_THAT(json, HasSubstr("\"file\": \"k/my_add.cu\""));
  EXPECT_THAT(FormatCompileTable(command, facts), HasSubstr("registers per thread     12"));
}

}  // namespace
}  // namespace kbench::client
