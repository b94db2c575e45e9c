// The worker's step before a run with learners' kernels: each
// RunRequest.kernels[i] compiled for the device (the KernelCompiler and its
// cache, server/worker/compile/), its cubin kept, and its launch spec
// evaluated for the problem (kernel_admission.h EvaluateLaunch), into the
// Problem's LearnerKernels (run_plan.h) that the backend loads and runs as
// variants after the built-ins.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/run/run_plan.h"
#include "server/worker/compile/kernel_compiler.h"

namespace kbench::server::worker {

// The problem's kernels, compiled, in the request's order. A compile error
// or an ABI mismatch is INVALID_ARGUMENT naming the kernel
// ("kernels[1] 'my_add.cu': ..."); without a compiler (no CUDA toolkit)
// FAILED_PRECONDITION.
// `starting`, when set, is told each kernel's name before its compile (the
// worker's progress: RunStep::kCompile).
absl::StatusOr<std::vector<LearnerKernel>> CompileLearnerKernels(
    const Problem& problem, worker::compile::KernelCompiler& compiler,
    const std::function<void(std::string_view name)>& starting = {});

}  // namespace kbench::server::worker
