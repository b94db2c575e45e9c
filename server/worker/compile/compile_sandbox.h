// The compile sandbox: one short-lived kbench-compile process per compile
// (compile_helper_main.cc), so that a compiler stuck in a template, out of
// memory or crashing takes only that process down, never the worker.
//
// Each run:
//   - a private directory (0700) under $TMPDIR (or /tmp) is the child's cwd
//     and $TMPDIR; the job is written there as the file `job`; the
//     directory and everything in it are removed afterwards;
//   - the child is started with posix_spawn (no fork handlers in this
//     threaded process): stdin /dev/null, stdout a pipe, stderr the file
//     `stderr` in its directory, every other descriptor closed, signals at
//     their defaults, an environment of PATH, HOME and TMPDIR only;
//   - the child limits itself before it reads the job: RLIMIT_CPU,
//     RLIMIT_AS, RLIMIT_FSIZE, no core dump, not dumpable, no new
//     privileges, and it dies with its parent (PR_SET_PDEATHSIG);
//   - the parent reads at most max_output_bytes of its stdout and kills it
//     (SIGKILL) past wall_seconds.
//
// Threading: any thread; runs are independent.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "kbench/worker/v1/worker.pb.h"

namespace kbench::server::worker::compile {

// kbench-compile's exit statuses other than 0 (a CompileOutput on stdout).
inline constexpr int kHelperExitSetupFailed = 2;  // bad arguments, no job, a limit not set
inline constexpr int kHelperExitOutOfMemory = 3;  // an allocation failed under RLIMIT_AS

struct SandboxLimits {
  uint32_t cpu_seconds = 10;
  uint64_t memory_bytes = uint64_t(4) << 30;  // address space
  uint64_t file_bytes = uint64_t(64) << 20;   // any file it writes
  double wall_seconds = 20;
  uint64_t max_output_bytes = uint64_t(64) << 20;
};

// Runs `helper` (the kbench-compile binary) on `job`. The CompileOutput it
// wrote, or: INVALID_ARGUMENT when the compile passed a limit (CPU time,
// wall time, memory, output size: the message names it); INTERNAL when the
// helper could not be started or failed otherwise (with its stderr's end).
absl::StatusOr<kbench::worker::v1::CompileOutput> RunCompileHelper(
    const std::string& helper, const kbench::worker::v1::CompileJob& job,
    const SandboxLimits& limits);

}  // namespace kbench::server::worker::compile
