// What an admitted run is: the problem (op, request, dtype, variants by id)
// and the timing plan with every default applied and every limit checked.
// Made by admission (validation.h) in the front, carried to the worker as
// the resolved request, and read by the runner and the backends.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kbench/v1/kbench.pb.h"
#include "kernels/dtype.h"
#include "proto/ops/op.h"

namespace kbench::server {

// A learner's kernel of the run (RunRequest.kernels), compiled by the
// worker (server/worker/compile/) for its device and run by the backend as
// a variant after the built-ins, named by KernelSource.name. Its launch
// spec is evaluated for the problem (launch_expression.h) and within the
// bounds every CUDA device shares (kernel_admission.h); the device checks
// its own limits before it launches.
struct LearnerKernel {
  std::string name;   // KernelSource.name
  std::string entry;  // the extern "C" __global__ function
  std::string cubin;  // the linked module, for the device's architecture
  v1::CompileFacts facts;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t shared_memory_bytes = 0;  // dynamic
};

struct Problem {
  const proto::ops::Op* op = nullptr;
  // The request as admitted: its seed is set (never 0).
  v1::RunRequest request;
  kernels::DType dtype = kernels::DType::kFp32;
  // The variants to run, baseline first: VariantSpec ids of `op`.
  std::vector<int> variants;
  // The learner's kernels, variants after the built-ins: variant i >=
  // variants.size() is kernels[i - variants.size()]. Filled by the worker
  // once it compiled them (LocalExecutor::Execute); empty before.
  std::vector<LearnerKernel> kernels;

  size_t VariantCount() const { return variants.size() + kernels.size(); }
  const std::string& VariantName(size_t i) const {
    return i < variants.size() ? op->variants()[variants[i]].name
                               : kernels[i - variants.size()].name;
  }
};

// Timing options with every default applied and every limit checked.
struct TimingPlan {
  uint32_t warmup_runs = 3;
  uint32_t min_samples = 10;
  double min_time_ms = 100;
  double target_rse = 0.005;
  double time_budget_ms = 2000;
  uint32_t max_samples = 1000;
  v1::TimingMode mode = v1::TIMING_MODE_COLD;
  double min_effect = 0.02;
  bool discard_throttled = false;
  // The run's wall-clock bound on its device (Started.deadline_ms):
  // 2 * time_budget_ms + Limits.max_run_overhead_seconds, set by
  // admission; 0: unbounded (a plan made by hand in a test).
  double deadline_ms = 0;
};

struct AdmittedRun {
  Problem problem;
  TimingPlan plan;
};

}  // namespace kbench::server
