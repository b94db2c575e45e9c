// What an admitted run is: the problem (op, request, dtype, variants by id)
// and the timing plan with every default applied and every limit checked.
// Made by admission (validation.h) in the front, carried to the worker as
// the resolved request, and read by the runner and the backends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kbench/v1/kbench.pb.h"
#include "kernels/dtype.h"
#include "proto/ops/op.h"

namespace kbench::server {

struct Problem {
  const ops::Op* op = nullptr;
  // The request as admitted: its seed is set (never 0).
  v1::RunRequest request;
  kernels::DType dtype = kernels::DType::kFp32;
  // The variants to run, baseline first: VariantSpec ids of `op`.
  std::vector<int> variants;

  const std::string& VariantName(size_t i) const { return op->variants()[variants[i]].name; }
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
