#include "server/worker/compile/kernel_compiler.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string_view>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "kernels/common/status_macros.h"
#include "proto/ops/dtypes.h"
#include "proto/ops/kernel_abi.h"
#include "server/common/sha256.h"
#include "server/worker/compile/link_info.h"
#include "server/worker/compile/ptx_abi.h"

namespace kbench::server::worker::compile {
namespace {

// Everything that decides a result, each part length-prefixed.
std::string CacheKey(const v1::CompileKernelRequest& request, const std::string& arch) {
  const v1::KernelSource& k = request.kernel();
  std::string key;
  auto add = [&](const std::string& part) { absl::StrAppend(&key, part.size(), ":", part, ";"); };
  add(arch);
  add(request.op());
  add(kernels::DTypeName(proto::ops::FromProto(request.dtype())));
  add(absl::StrCat(int(k.language())));
  add(k.name());
  add(k.entry());
  for (const std::string& o : k.options()) add(o);
  add(k.source());
  return server::Sha256Hex(key);
}

std::string Bounded(std::string log) {
  if (log.size() <= kMaxCompileLogBytes) return log;
  log.resize(kMaxCompileLogBytes);
  return log + "\n[log cut at 64 KiB]";
}

// The learner's options as NVRTC and nvJitLink take them (the allow-list
// is admission's): -O goes to ptxas through nvJitLink (NVRTC optimises
// always), --maxrregcount to both, -lineinfo to both.
void AddOptions(const v1::KernelSource& kernel, const std::string& arch,
                kbench::worker::v1::CompileJob& job) {
  std::string virtual_arch = absl::StrReplaceAll(arch, {{"sm_", "compute_"}});
  job.add_nvrtc_options("-arch=" + virtual_arch);
  job.add_nvrtc_options("-std=c++17");
  // No directory of the source is searched for quoted includes.
  job.add_nvrtc_options("--no-source-include");
  job.add_link_options("-arch=" + arch);
  job.add_link_options("-verbose");
  std::string level = "-O3";
  for (const std::string& option : kernel.options()) {
    if (absl::StartsWith(option, "-O")) {
      level = option;
    } else if (absl::StartsWith(option, "--maxrregcount=")) {
      job.add_nvrtc_options(option);
      job.add_link_options("-maxrregcount=" + option.substr(15));
    } else if (option == "-lineinfo") {
      job.add_nvrtc_options("-lineinfo");
      job.add_link_options("-lineinfo");
    } else {
      job.add_nvrtc_options(option);
    }
  }
  // nvJitLink itself takes -O0 and -O3 only; ptxas takes every level.
  job.add_link_options(level == "-O0" || level == "-O3" ? level : "-Xptxas=" + level);
}

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

}  // namespace

std::string DefaultCompileHelper() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "kbench-compile";
  return (self.parent_path() / "kbench-compile").string();
}

std::string ArchOf(const v1::DeviceInfo& device) {
  const std::string& cc = device.compute_capability();
  if (cc.empty() || cc == "9.0") return "sm_90a";
  return "sm_" + absl::StrReplaceAll(cc, {{".", ""}});
}

KernelCompiler::KernelCompiler(CompilerOptions options)
    : options_([&] {
        if (options.helper.empty()) options.helper = DefaultCompileHelper();
        if (options.arch.empty()) options.arch = "sm_90a";
        return std::move(options);
      }()),
      cache_(options_.cache_entries) {}

absl::StatusOr<v1::CompileFacts> KernelCompiler::Compile(const v1::CompileKernelRequest& request) {
  KBENCH_ASSIGN_OR_RETURN(CompiledKernel compiled, CompileModule(request));
  return std::move(compiled.facts);
}

absl::StatusOr<CompiledKernel> KernelCompiler::CompileModule(
    const v1::CompileKernelRequest& request) {
  const std::string key = CacheKey(request, options_.arch);
  if (std::optional<absl::StatusOr<CompiledKernel>> hit = cache_.Find(key)) {
    if (hit->ok()) (*hit)->facts.set_cached(true);
    return *std::move(hit);
  }
  absl::StatusOr<CompiledKernel> result = CompileUncached(request);
  if (result.ok() || result.status().code() == absl::StatusCode::kInvalidArgument)
    cache_.Put(key, result);
  return result;
}

absl::StatusOr<CompiledKernel> KernelCompiler::CompileUncached(
    const v1::CompileKernelRequest& request) {
  if (!Executable(options_.helper))
    return absl::FailedPreconditionError(absl::StrCat(
        "this server cannot compile kernels: its compile helper ", options_.helper,
        " is missing (kbench-compile is built only where the CUDA toolkit, with NVRTC and "
        "nvJitLink, is found)"));
  const proto::ops::KernelAbi* abi = proto::ops::AbiOf(request.op());
  if (abi == nullptr)
    return absl::InvalidArgumentError(absl::StrCat("op: no kernel ABI for '", request.op(), "'"));
  const v1::KernelSource& kernel = request.kernel();
  kbench::worker::v1::CompileJob job;
  job.set_language(kernel.language());
  job.set_name(kernel.name());
  if (kernel.language() == v1::KERNEL_LANGUAGE_PTX) {
    job.set_source(kernel.source());
  } else {
    job.set_source(absl::StrCat(proto::ops::KernelPrelude(proto::ops::FromProto(request.dtype())),
                                "#line 1 \"", kernel.name(), "\"\n", kernel.source()));
  }
  AddOptions(kernel, options_.arch, job);

  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<kbench::worker::v1::CompileOutput> output =
      RunCompileHelper(options_.helper, job, options_.limits);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!output.ok()) {
    if (output.status().code() != absl::StatusCode::kInvalidArgument) return output.status();
    return absl::InvalidArgumentError(absl::StrCat(kernel.name(), ": ", output.status().message()));
  }
  if (!output->ok())
    return absl::InvalidArgumentError(
        absl::StrCat(kernel.name(), ": compile failed\n", Bounded(output->log())));
  absl::StatusOr<std::vector<PtxEntry>> entries = ReadPtxEntries(output->ptx());
  if (!entries.ok()) return entries.status();
  if (absl::Status abi_ok = CheckEntryAbi(*entries, kernel.entry(), *abi); !abi_ok.ok())
    return abi_ok;
  if (absl::Status calls = CheckExternalCalls(output->ptx()); !calls.ok())
    return absl::InvalidArgumentError(absl::StrCat(kernel.name(), ": ", calls.message()));

  CompiledKernel compiled;
  compiled.cubin = output->cubin();
  v1::CompileFacts& facts = compiled.facts;
  facts.set_arch(options_.arch);
  facts.set_entry(kernel.entry());
  ReadLinkInfo(output->link_info(), kernel.entry(), facts);
  if (facts.global_memory_bytes() > kMaxModuleGlobalMemoryBytes)
    return absl::InvalidArgumentError(absl::StrCat(
        kernel.name(), ": its __device__ variables take ", facts.global_memory_bytes(),
        " bytes of global memory; at most ", kMaxModuleGlobalMemoryBytes,
        " (64 KiB) are allowed, since state that outlives a launch could carry outputs from "
        "one launch to the next: keep data in the buffers the op passes"));
  facts.set_log(Bounded(output->log()));
  facts.set_compile_ms(ms);
  facts.set_source_sha256(server::Sha256Hex(kernel.source()));
  return compiled;
}

}  // namespace kbench::server::worker::compile
