// The compile path of learners' kernels without a GPU
// (server/worker/compile/kernel_compiler.h): NVRTC and nvJitLink in the
// kbench-compile sandbox, the ABI check from the PTX, the facts, the cache,
// compile errors with their log, and the sandbox's limits. Every starter
// kernel under docs/examples/kernels/ compiles for each dtype its op takes;
// the times printed are those docs/KERNELS.md quotes.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/attention/tolerances.h"
#include "kernels/dtype.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/kernel_abi.h"
#include "server/worker/compile/kernel_compiler.h"

namespace kbench::server::worker::compile {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

CompilerOptions Options() {
  CompilerOptions options;
  options.helper = KBENCH_COMPILE_HELPER;
  return options;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

v1::CompileKernelRequest Request(std::string source, std::string entry = "my_add",
                                 std::string op = "vector_add") {
  v1::CompileKernelRequest r;
  r.set_op(std::move(op));
  v1::KernelSource& k = *r.mutable_kernel();
  k.set_name("my_add.cu");
  k.set_language(v1::KERNEL_LANGUAGE_CUDA_CPP);
  k.set_source(std::move(source));
  k.set_entry(std::move(entry));
  return r;
}

constexpr char kAdd[] =
    "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
    "                                    long long n) {\n"
    "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

TEST(KernelCompile, EveryStarterCompilesForEachDtypeOfItsOp) {
  KernelCompiler compiler(Options());
  int compiled = 0;
  for (const auto& file :
       std::filesystem::directory_iterator(KBENCH_SOURCE_DIR "/docs/examples/kernels")) {
    if (file.path().extension() != ".cu") continue;
    const std::string stem = file.path().stem().string();
    const std::string op = stem.rfind("vector_add", 0) == 0 ? "vector_add" : "attention";
    const proto::ops::KernelAbi* abi = proto::ops::AbiOf(op);
    ASSERT_NE(abi, nullptr);
    for (kernels::DType dtype : abi->dtypes) {
      v1::CompileKernelRequest request = Request(ReadFile(file.path()), stem, op);
      request.mutable_kernel()->set_name(file.path().filename().string());
      request.set_dtype(proto::ops::ToProto(dtype));
      absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(request);
      ASSERT_TRUE(facts.ok()) << stem << " " << kernels::DTypeName(dtype) << ": " << facts.status();
      EXPECT_EQ(facts->arch(), "sm_90a");
      EXPECT_EQ(facts->entry(), stem);
      EXPECT_GT(facts->registers_per_thread(), 0u) << stem;
      EXPECT_EQ(facts->spill_store_bytes(), 0u) << stem;
      EXPECT_FALSE(facts->cached());
      EXPECT_EQ(facts->source_sha256().size(), 64u);
      std::cout << "compile time: " << file.path().filename().string() << " "
                << kernels::DTypeName(dtype) << " " << facts->compile_ms() << " ms, "
                << facts->registers_per_thread() << " registers" << std::endl;
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 2 + 2 * 4);  // vector add: fp32; attention: four dtypes
}

// The prelude's kbench_t and kbench_out_t have the sizes of the attention
// op's input and output dtypes (kernels/attention/tolerances.h
// AttentionOutputDType: bf16 for fp8), checked by the compiler itself; a
// wrong size is a compile error, so the check can fail.
TEST(KernelCompile, ThePreludesTypesAreTheSizesOfAttentionsInputAndOutputDtypes) {
  KernelCompiler compiler(Options());
  auto source = [](int in_bytes, int out_bytes) {
    return absl::StrCat(
        "static_assert(sizeof(kbench_t) == ", in_bytes, ", \"kbench_t\");\n",
        "static_assert(sizeof(kbench_out_t) == ", out_bytes, ", \"kbench_out_t\");\n",
        "extern \"C\" __global__ void sizes(const kbench_t* q, const kbench_t* k,\n"
        "    const kbench_t* v, kbench_out_t* o, int B, int H, int N, int d, float scale,\n"
        "    int causal) {}\n");
  };
  const proto::ops::KernelAbi* abi = proto::ops::AbiOf("attention");
  ASSERT_NE(abi, nullptr);
  for (kernels::DType dtype : abi->dtypes) {
    SCOPED_TRACE(kernels::DTypeName(dtype));
    const int in = kernels::DTypeBytes(dtype);
    const int out = kernels::DTypeBytes(kernels::AttentionOutputDType(dtype));
    v1::CompileKernelRequest request = Request(source(in, out), "sizes", "attention");
    request.set_dtype(proto::ops::ToProto(dtype));
    absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(request);
    EXPECT_TRUE(facts.ok()) << facts.status();
    request = Request(source(in, out + 1), "sizes", "attention");
    request.set_dtype(proto::ops::ToProto(dtype));
    facts = compiler.Compile(request);
    EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(facts.status().message()), HasSubstr("kbench_out_t"));
  }
}

TEST(KernelCompile, AResubmitIsServedFromTheCache) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> first = compiler.Compile(Request(kAdd));
  ASSERT_TRUE(first.ok()) << first.status();
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<v1::CompileFacts> again = compiler.Compile(Request(kAdd));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->cached());
  EXPECT_EQ(again->registers_per_thread(), first->registers_per_thread());
  EXPECT_LT(ms, 50);
  std::cout << "compile time: cached resubmit " << ms << " ms (first " << first->compile_ms()
            << " ms)" << std::endl;
  v1::CompileKernelRequest changed = Request(kAdd);
  changed.mutable_kernel()->add_options("-O1");
  absl::StatusOr<v1::CompileFacts> other = compiler.Compile(changed);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(other->cached());
}

TEST(KernelCompile, TheModuleToRunIsTheLinkedCubinAndIsCachedWithTheFacts) {
  KernelCompiler compiler(Options());
  absl::StatusOr<CompiledKernel> first = compiler.CompileModule(Request(kAdd));
  ASSERT_TRUE(first.ok()) << first.status();
  // An ELF image for the architecture, the size the linker reported.
  ASSERT_GT(first->cubin.size(), 4u);
  EXPECT_EQ(first->cubin.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_FALSE(first->facts.cached());
  absl::StatusOr<CompiledKernel> again = compiler.CompileModule(Request(kAdd));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->facts.cached());
  EXPECT_EQ(again->cubin, first->cubin);
  // A compile error gives no module.
  EXPECT_EQ(compiler.CompileModule(Request("this is not C++")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(KernelCompile, ACompileErrorComesBackWithTheLogNamingTheFileAndLine) {
  KernelCompiler compiler(Options());
  const std::string source =
      "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                    long long n) {\n"
      "  c[0] = x;\n"
      "}\n";
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(Request(source));
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(facts.status().message(),
              AllOf(HasSubstr("my_add.cu: compile failed\n"),
                    HasSubstr("my_add.cu(3): error: identifier \"x\" is undefined")));
  // Refusals are cached too: the same mistake comes back at once.
  absl::StatusOr<v1::CompileFacts> again = compiler.Compile(Request(source));
  EXPECT_EQ(again.status(), facts.status());
}

TEST(KernelCompile, AWrongEntryNameListsTheModulesKernels) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(Request(kAdd, "add"));
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(facts.status().message(),
              AllOf(HasSubstr("no kernel named 'add'"), HasSubstr("its kernels: my_add")));
}

TEST(KernelCompile, AMangledNameSaysToDeclareTheKernelExternC) {
  KernelCompiler compiler(Options());
  std::string source = kAdd;
  source.erase(0, std::string("extern \"C\" ").size());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(Request(source));
  ASSERT_FALSE(facts.ok());
  EXPECT_THAT(facts.status().message(), AllOf(HasSubstr("_Z6my_add"), HasSubstr("extern \"C\"")));
}

TEST(KernelCompile, AWrongParameterListSaysWhatTheOpExpects) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(
      Request("extern \"C\" __global__ void my_add(const kbench_t* a, kbench_t* c, int n) {}\n"));
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(facts.status().message(),
              AllOf(HasSubstr("'my_add' takes 3 parameters (8, 8, 4 bytes)"),
                    HasSubstr("vector_add kernels take 4 parameters (8, 8, 8, 8 bytes)"),
                    HasSubstr("long long n")));
  // Attention's causal is an int: a bool (1 byte) is a mismatch.
  facts = compiler.Compile(Request(
      "extern \"C\" __global__ void att(const kbench_t* q, const kbench_t* k, const kbench_t* v,\n"
      "  kbench_t* o, int B, int H, int N, int d, float scale, bool causal) {}\n",
      "att", "attention"));
  ASSERT_FALSE(facts.ok());
  EXPECT_THAT(facts.status().message(), HasSubstr("4, 4, 4, 4, 4, 1 bytes"));
}

TEST(KernelCompile, PtxIsLinkedForTheArchitectureAndChecked) {
  KernelCompiler compiler(Options());
  v1::CompileKernelRequest request = Request(
      ".version 9.0\n.target sm_90a\n.address_size 64\n"
      "// .entry commented_out(.param .u64 x)\n"
      ".visible .entry ptx_add(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 n)\n"
      "{\n  ret;\n}\n",
      "ptx_add");
  request.mutable_kernel()->set_language(v1::KERNEL_LANGUAGE_PTX);
  request.mutable_kernel()->set_name("my_add.ptx");
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(request);
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->entry(), "ptx_add");
  request.mutable_kernel()->set_source("this is not PTX\n");
  facts = compiler.Compile(request);
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(facts.status().message(), HasSubstr("my_add.ptx: compile failed"));
}

// PTX as Triton writes it (tests/testdata/triton_style_add.ptx: two hidden
// scratch pointers after the op's parameters) is linked and passes the ABI
// check.
TEST(KernelCompile, TritonStylePtxWithItsHiddenPointersPassesTheAbiCheck) {
  std::ifstream in(KBENCH_SOURCE_DIR "/tests/testdata/triton_style_add.ptx");
  ASSERT_TRUE(in) << "tests/testdata/triton_style_add.ptx";
  const std::string ptx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  KernelCompiler compiler(Options());
  v1::CompileKernelRequest request = Request(ptx, "add_kernel");
  request.mutable_kernel()->set_language(v1::KERNEL_LANGUAGE_PTX);
  request.mutable_kernel()->set_name("add_kernel.ptx");
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(request);
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->entry(), "add_kernel");
}

TEST(KernelCompile, StaticSharedMemoryAndSpillsAreReported) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(Request(
      "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                    long long n) {\n"
      "  __shared__ float tile[1024];\n"
      "  tile[threadIdx.x] = a[threadIdx.x];\n"
      "  __syncthreads();\n"
      "  c[threadIdx.x] = tile[1023 - threadIdx.x] + b[threadIdx.x];\n"
      "}\n"));
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->static_shared_memory_bytes(), 4096u);
}

// Kernel with `body` in place of the vector add's, and `globals` before it.
std::string AddWith(const std::string& globals, const std::string& body) {
  return globals +
         "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
         "                                    long long n) {\n" +
         body + "}\n";
}

TEST(KernelCompile, DeviceMallocIsRefusedNamingItAndWhy) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(Request(AddWith(
      "", "  kbench_t* cache = (kbench_t*)malloc(64);\n  cache[0] = a[0];\n  c[0] = cache[0];\n")));
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(facts.status().message(),
              AllOf(HasSubstr("my_add.cu: the kernel calls malloc"), HasSubstr("device heap")));
}

TEST(KernelCompile, GlobalStateOverItsBoundIsRefusedAndASmallTableIsNot) {
  KernelCompiler compiler(Options());
  // A 4 MiB __device__ array: room for a cache of earlier outputs.
  absl::StatusOr<v1::CompileFacts> big = compiler.Compile(
      Request(AddWith("__device__ kbench_t remembered[1 << 20];\n",
                      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                      "  if (i < n) { c[i] = remembered[i % (1 << 20)]; remembered[i % (1 << 20)] "
                      "= a[i] + b[i]; }\n")));
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(big.status().message(),
              AllOf(HasSubstr("its __device__ variables take"), HasSubstr("at most 65536")));
  absl::StatusOr<v1::CompileFacts> small = compiler.Compile(
      Request(AddWith("__device__ float scale[16];\n",
                      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                      "  if (i < n) c[i] = (a[i] + b[i]) * (kbench_t)scale[i % 16];\n")));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->global_memory_bytes(), 64u);
}

TEST(KernelCompile, PrintfAndAssertAreAllowed) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(
      Request(AddWith("",
                      "  if (threadIdx.x == 0 && blockIdx.x == 0) printf(\"n = %lld\\n\", n);\n"
                      "  assert(n >= 0);\n"
                      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                      "  if (i < n) c[i] = a[i] + b[i];\n")));
  EXPECT_TRUE(facts.ok()) << facts.status();
}

// cuda_fp8.h, one of the headers a kernel may include, is found by the
// sandbox's compiler: a sum rounded through E4M3 compiles.
TEST(KernelCompile, TheFp8HeaderCompilesInTheSandbox) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(
      Request(AddWith("#include <cuda_fp8.h>\n",
                      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                      "  if (i < n) c[i] = float(__nv_fp8_e4m3(a[i] + b[i]));\n")));
  EXPECT_TRUE(facts.ok()) << facts.status();
}

// Dynamic parallelism: a kernel that launches another from the device (a
// child that could run on after its parent's launch was timed) is refused.
TEST(KernelCompile, ALaunchFromTheDeviceIsRefused) {
  KernelCompiler compiler(Options());
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(Request(
      "__global__ void child(kbench_t* c) { c[0] = (kbench_t)1.0f; }\n"
      "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                     long long n) {\n"
      "  if (threadIdx.x == 0) child<<<1, 1>>>(c);\n"
      "}\n"));
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  std::printf("[ exploit  ] dynamic parallelism: %s\n",
              std::string(facts.status().message()).substr(0, 300).c_str());
}

TEST(KernelCompile, ACompileThatExplodesIsStoppedByTheCpuLimit) {
  CompilerOptions options = Options();
  options.limits.cpu_seconds = 2;
  options.limits.wall_seconds = 30;
  KernelCompiler compiler(options);
  // 90 * 90 distinct instantiations, each calling two others: inlined, the
  // call tree has C(180, 90) leaves. Too shallow for the front end's
  // recursion limit, so only the sandbox's CPU limit stops it.
  const std::string source =
      "template <int I, int J> struct G {\n"
      "  __device__ static long v(long x) { return G<I - 1, J>::v(x) + G<I, J - 1>::v(x + 1); }\n"
      "};\n"
      "template <int J> struct G<0, J> { __device__ static long v(long x) { return x + J; } };\n"
      "template <int I> struct G<I, 0> { __device__ static long v(long x) { return x * I; } };\n"
      "extern \"C\" __global__ void my_add(const kbench_t* a, const kbench_t* b, kbench_t* c,\n"
      "                                    long long n) { c[0] = G<90, 90>::v(n); }\n";
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<v1::CompileFacts> facts = compiler.Compile(Request(source));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(facts.status().message(), HasSubstr("compile stopped"));
  EXPECT_LT(seconds, 30);
  std::cout << "exploding template: " << facts.status().message() << " after " << seconds << " s"
            << std::endl;
}

}  // namespace
}  // namespace kbench::server::worker::compile
