// The worker's compiler of learners' kernels: a request the front admitted
// (server/run/kernel_admission.h CheckCompileRequest) becomes a job for the
// sandbox (compile_sandbox.h: NVRTC, then nvJitLink, in a kbench-compile
// child), whose PTX is checked against the op's ABI (ptx_abi.h) and whose
// linker info gives the facts (link_info.h). Results are cached
// (compile_cache.h). The CUDA C++ compiled is the op's prelude for the dtype
// (proto/ops/kernel_abi.h KernelPrelude), a #line 1 "<name>" directive, then
// the learner's source, so the compiler's messages point into the
// learner's file.
//
// Threading: Compile from any thread; compiles run side by side (the
// caller bounds how many).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "kbench/v1/kbench.pb.h"
#include "server/worker/compile/compile_cache.h"
#include "server/worker/compile/compile_sandbox.h"

namespace kbench::server::worker::compile {

// The largest compiler log returned, in a result or an error.
inline constexpr size_t kMaxCompileLogBytes = 64 * 1024;
// The most global memory a learner's module may declare (__device__
// variables): state that outlives a launch could carry outputs from one
// launch to the next, so a kernel gets a little for tables and no more.
inline constexpr uint64_t kMaxModuleGlobalMemoryBytes = 64 * 1024;

struct CompilerOptions {
  // The kbench-compile binary; empty: DefaultCompileHelper().
  std::string helper;
  // The target, e.g. "sm_90a"; empty: sm_90a.
  std::string arch;
  SandboxLimits limits;
  size_t cache_entries = 64;
};

// kbench-compile beside this program (/proc/self/exe), where the build puts
// it next to kbench-worker.
std::string DefaultCompileHelper();

// The architecture kernels are compiled for on `device`: sm_90a for
// compute capability 9.0 (so wgmma is available) and for a CPU device (the
// H200's, as a compile-only target); sm_XY otherwise.
std::string ArchOf(const v1::DeviceInfo& device);

class KernelCompiler {
 public:
  explicit KernelCompiler(CompilerOptions options);

  // The facts of the compiled kernel; INVALID_ARGUMENT with the compiler's
  // log (at most kMaxCompileLogBytes) for a compile error, saying what was
  // expected for an ABI mismatch, naming a function it may not call
  // (ptx_abi.h CheckExternalCalls) or the sandbox limit passed, or when
  // its global memory is over kMaxModuleGlobalMemoryBytes;
  // FAILED_PRECONDITION when the build has no compile helper (no CUDA
  // toolkit) or it is missing.
  absl::StatusOr<v1::CompileFacts> Compile(const v1::CompileKernelRequest& request);
  // The same, with the linked cubin the worker loads to run the kernel
  // (from the same cache).
  absl::StatusOr<CompiledKernel> CompileModule(const v1::CompileKernelRequest& request);

  const std::string& arch() const { return options_.arch; }

 private:
  absl::StatusOr<CompiledKernel> CompileUncached(const v1::CompileKernelRequest& request);

  const CompilerOptions options_;
  CompileCache cache_;
};

}  // namespace kbench::server::worker::compile
