#include "server/runner.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "kernels/reference.h"
#include "kernels/verify.h"
#include "server/statistics.h"

namespace kbench::server {
namespace {

using Clock = std::chrono::steady_clock;

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// What differs between ops: how an output is checked and how work is counted.
struct OpHooks {
  std::function<v1::Verification(std::span<const float>)> verify;
  std::function<v1::Throughput(double median_ms)> throughput;
};

v1::Verification ToVerification(const kernels::ErrorStats& errors,
                                 double tolerance, std::string method) {
  v1::Verification v;
  v.set_passed(errors.Passes(tolerance));
  v.set_max_abs_error(errors.max_abs_error());
  v.set_rel_l2_error(errors.rel_l2_error());
  v.set_tolerance(tolerance);
  v.set_elements_checked(errors.checked());
  v.set_non_finite(errors.non_finite());
  v.set_method(std::move(method));
  return v;
}

#define KBENCH_RETURN_IF_CANCELLED(sink) \
  if ((sink).Cancelled()) return absl::CancelledError("run cancelled by the client")

class ClockWatch {
 public:
  void Add(const ClockReading& r) {
    if (!r.available) return;
    clocks_.set_available(true);
    if (!seen_ || r.sm_clock_mhz < clocks_.sm_clock_mhz_min())
      clocks_.set_sm_clock_mhz_min(r.sm_clock_mhz);
    if (!seen_ || r.sm_clock_mhz > clocks_.sm_clock_mhz_max())
      clocks_.set_sm_clock_mhz_max(r.sm_clock_mhz);
    if (r.throttled) clocks_.set_throttled(true);
    seen_ = true;
  }
  const v1::Clocks& clocks() const { return clocks_; }

 private:
  bool seen_ = false;
  v1::Clocks clocks_;
};

// Steps 2-5 of runner.h for any op, once the workload exists.
absl::Status Measure(Device& device, Workload& workload,
                     const std::vector<std::string>& variants,
                     const TimingPlan& plan, const std::string& run_id,
                     const OpHooks& hooks, Clock::time_point run_start,
                     RunSink& sink) {
  const int count = int(variants.size());

  std::vector<v1::Verification> checks(count);
  for (int v = 0; v < count; ++v) {
    KBENCH_RETURN_IF_CANCELLED(sink);
    if (auto s = workload.PoisonOutput(); !s.ok()) return s;
    if (auto s = workload.Run(v); !s.ok()) return s;
    auto output = workload.Output();
    if (!output.ok()) return output.status();
    checks[v] = hooks.verify(*output);
  }

  for (uint32_t w = 0; w < plan.warmup_runs; ++w) {
    for (int v = 0; v < count; ++v) {
      KBENCH_RETURN_IF_CANCELLED(sink);
      if (auto s = workload.Run(v); !s.ok()) return s;
    }
  }

  std::vector<std::vector<double>> samples(count);
  std::vector<ClockWatch> clocks(count);
  v1::StopReason stop = v1::STOP_REASON_UNSPECIFIED;
  const auto sampling_start = Clock::now();
  while (stop == v1::STOP_REASON_UNSPECIFIED) {
    for (int v = 0; v < count; ++v) {
      KBENCH_RETURN_IF_CANCELLED(sink);
      auto ms = workload.TimeSample(v, plan.mode);
      if (!ms.ok()) return ms.status();
      clocks[v].Add(device.ReadClock());
      v1::RunEvent event;
      v1::Sample* sample = event.mutable_sample();
      sample->set_variant(variants[v]);
      sample->set_index(uint32_t(samples[v].size()));
      sample->set_ms(*ms);
      samples[v].push_back(*ms);
      sink.Emit(std::move(event));
    }
    const size_t rounds = samples[0].size();
    const double elapsed = MillisecondsSince(sampling_start);
    const bool converged =
        rounds >= plan.min_samples && elapsed >= plan.min_time_ms &&
        std::all_of(samples.begin(), samples.end(), [&](const auto& s) {
          return RelativeStandardError(s) < plan.target_rse;
        });
    if (converged) {
      stop = v1::STOP_REASON_CONVERGED;
    } else if (rounds >= plan.max_samples) {
      stop = v1::STOP_REASON_MAX_SAMPLES;
    } else if (elapsed >= plan.time_budget_ms) {
      stop = v1::STOP_REASON_TIME_BUDGET;
    }
  }

  bool all_verified = true;
  for (int v = 0; v < count; ++v) {
    v1::RunEvent event;
    v1::VariantResult* result = event.mutable_variant_result();
    result->set_variant(variants[v]);
    *result->mutable_stats() = Summarize(samples[v]);
    result->mutable_stats()->set_stop_reason(stop);
    *result->mutable_throughput() = hooks.throughput(result->stats().median_ms());
    *result->mutable_verification() = checks[v];
    *result->mutable_clocks() = clocks[v].clocks();
    all_verified = all_verified && checks[v].passed();
    sink.Emit(std::move(event));
  }

  v1::RunEvent event;
  v1::Summary* summary = event.mutable_summary();
  summary->set_run_id(run_id);
  summary->set_all_verified(all_verified);
  for (int v = 1; v < count; ++v) {
    // Paired by round: both samples of a ratio ran back to back.
    std::vector<double> ratios(samples[v].size());
    for (size_t i = 0; i < ratios.size(); ++i) ratios[i] = samples[0][i] / samples[v][i];
    const MedianInterval m = MedianWithInterval(std::move(ratios));
    v1::Speedup* speedup = summary->add_speedups();
    speedup->set_variant(variants[v]);
    speedup->set_baseline(variants[0]);
    speedup->set_speedup(m.median);
    speedup->set_ci_low(m.low);
    speedup->set_ci_high(m.high);
    speedup->set_verdict(m.low > 1   ? v1::VERDICT_FASTER
                         : m.high < 1 ? v1::VERDICT_SLOWER
                                      : v1::VERDICT_NO_DIFFERENCE);
  }
  summary->set_wall_ms(MillisecondsSince(run_start));
  sink.Emit(std::move(event));
  return absl::OkStatus();
}

// Started names the timing method, which only the workload knows, so it is
// emitted once the problem is prepared.
absl::Status RunJob(Device& device, uint64_t seed,
                    const std::vector<std::string>& variants,
                    const TimingPlan& plan, const std::string& run_id,
                    const std::function<absl::StatusOr<std::unique_ptr<Workload>>()>& prepare,
                    const OpHooks& hooks, RunSink& sink) {
  const auto run_start = Clock::now();
  KBENCH_RETURN_IF_CANCELLED(sink);
  auto workload = prepare();
  if (!workload.ok()) return workload.status();
  const v1::DeviceInfo info = device.Info();
  v1::RunEvent event;
  v1::Started* started = event.mutable_started();
  started->set_run_id(run_id);
  started->set_backend(info.backend());
  started->set_device(info.name());
  started->set_seed(seed);
  for (const auto& v : variants) started->add_variants(v);
  started->set_timing_method((*workload)->TimingMethod(plan.mode));
  sink.Emit(std::move(event));
  return Measure(device, **workload, variants, plan, run_id, hooks, run_start, sink);
}

std::string CeilingText(const char* what, double value, const char* unit) {
  return absl::StrFormat("%s %.0f %s, measured by the server at start-up", what,
                         value, unit);
}

}  // namespace

absl::Status RunVectorAddJob(Device& device, const VectorAddProblem& problem,
                             const TimingPlan& plan, const std::string& run_id,
                             RunSink& sink) {
  const double copy_gbps = device.Info().copy_bandwidth_gbps();
  const double tolerance = kernels::Tolerance(problem.dtype, /*attention=*/false);
  const int bytes = kernels::DTypeBytes(problem.dtype);
  OpHooks hooks;
  hooks.verify = [&](std::span<const float> out) {
    kernels::ErrorStats errors;
    for (int64_t i = 0; i < problem.n; ++i)
      errors.Add(out[i], kernels::VectorAddReference(problem.seed, problem.dtype, i));
    return ToVerification(errors, tolerance,
                          absl::StrCat("all ", problem.n, " elements"));
  };
  hooks.throughput = [&](double median_ms) {
    v1::Throughput t;
    t.set_unit("GB/s");
    t.set_formula(absl::StrCat("bytes = 3 * n * ", bytes, " (read a, read b, write c)"));
    t.set_value(3.0 * double(problem.n) * bytes / (median_ms * 1e-3) / 1e9);
    if (copy_gbps > 0) {
      t.set_fraction_of_ceiling(t.value() / copy_gbps);
      t.set_ceiling(CeilingText("device copy bandwidth", copy_gbps, "GB/s"));
    }
    return t;
  };
  return RunJob(
      device, problem.seed, problem.variants, plan, run_id,
      [&] { return device.PrepareVectorAdd(problem); }, hooks, sink);
}

absl::Status RunAttentionJob(Device& device, const AttentionProblem& problem,
                             const TimingPlan& plan, const std::string& run_id,
                             RunSink& sink) {
  const kernels::AttentionShape& shape = problem.shape;
  const double matmul_tflops = device.Info().matmul_tflops();
  const double tolerance = kernels::Tolerance(problem.dtype, /*attention=*/true);
  const auto rows = kernels::SampleAttentionRows(shape, kMaxVerifiedAttentionRows,
                                                 problem.seed);
  const bool all_rows = int64_t(rows.size()) == shape.BatchHeads() * shape.seq_len;
  const std::string method =
      all_rows ? absl::StrCat("all ", rows.size(), " rows (every element)")
               : absl::StrCat(rows.size(), " seeded sample rows of ",
                              shape.BatchHeads() * shape.seq_len,
                              " (every element of those rows)");
  std::optional<std::vector<double>> reference;  // shared by all variants
  OpHooks hooks;
  hooks.verify = [&](std::span<const float> out) {
    if (!reference)
      reference = kernels::AttentionReferenceRows(shape, problem.seed, problem.dtype, rows);
    kernels::ErrorStats errors;
    const int64_t d = shape.head_dim;
    for (size_t r = 0; r < rows.size(); ++r) {
      const int64_t base = (rows[r].batch_head * shape.seq_len + rows[r].row) * d;
      for (int64_t x = 0; x < d; ++x) errors.Add(out[base + x], (*reference)[r * d + x]);
    }
    return ToVerification(errors, tolerance, method);
  };
  hooks.throughput = [&](double median_ms) {
    v1::Throughput t;
    t.set_unit("TFLOP/s");
    t.set_formula(shape.causal ? "FLOPs = 4 * B * H * N^2 * d / 2 (causal)"
                               : "FLOPs = 4 * B * H * N^2 * d");
    t.set_value(shape.Flops() / (median_ms * 1e-3) / 1e12);
    // The measured matmul ceiling is a 16-bit tensor-core rate: a fraction
    // of it is only meaningful for 16-bit attention.
    if (matmul_tflops > 0 && problem.dtype != kernels::DType::kFp32) {
      t.set_fraction_of_ceiling(t.value() / matmul_tflops);
      t.set_ceiling(CeilingText("fp16 matmul rate", matmul_tflops, "TFLOP/s"));
    }
    return t;
  };
  return RunJob(
      device, problem.seed, problem.variants, plan, run_id,
      [&] { return device.PrepareAttention(problem); }, hooks, sink);
}

}  // namespace kbench::server
