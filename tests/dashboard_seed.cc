#include "tests/dashboard_seed.h"

#include <string>
#include <vector>

#include "kernels/common/status_macros.h"
#include "tests/run_records.h"

namespace kbench::testing {
namespace {

struct VariantTime {
  std::string variant;
  double median_ms = 0;
  bool verified = true;
};

struct SeedRun {
  std::string run_id;
  std::string user;
  std::string label;
  std::string op;
  v1::RunStatus status = v1::RUN_STATUS_OK;
  std::vector<VariantTime> variants;
  double speedup = 0;  // of the second variant over the first
};

// FLOPs of the seeded attention problem: 4 * B * H * N^2 * d / 2 (causal).
constexpr double kAttentionFlop = 4.0 * 2 * 4 * 1000 * 1000 * 64 / 2;
// Bytes of the seeded vector add: 3 * n * 4.
constexpr double kVectorAddBytes = 3.0 * 16777216 * 4;

v1::RunRecord Admitted(const SeedRun& seed, int64_t unix_ms) {
  v1::RunRecord run = AdmittedRun(seed.run_id, unix_ms, seed.label, seed.op, seed.user);
  if (seed.user.empty()) run.set_peer("ipv4:127.0.0.2:40000");
  if (seed.op == "vector_add") {
    run.mutable_request()->mutable_vector_add()->set_n(16777216);
    run.mutable_request()->set_dtype(v1::DTYPE_FP32);
    run.mutable_request()->clear_variants();
    for (const VariantTime& v : seed.variants) run.mutable_request()->add_variants(v.variant);
  }
  return run;
}

server::store::RunOutcome Outcome(const SeedRun& seed, const v1::DeviceInfo& device,
                                  int64_t unix_ms) {
  server::store::RunOutcome outcome;
  outcome.status = seed.status;
  outcome.unix_ms = unix_ms;
  const bool attention = seed.op == "attention";
  bool all_verified = true;
  for (const VariantTime& v : seed.variants) {
    v1::VariantResult& result = *outcome.results.Add();
    result.set_variant(v.variant);
    result.mutable_stats()->set_samples(20);
    result.mutable_stats()->set_median_ms(v.median_ms);
    v1::Throughput& throughput = *result.mutable_throughput();
    if (attention) {
      throughput.set_value(kAttentionFlop / (v.median_ms / 1000) / 1e12);
      throughput.set_unit("TFLOP/s");
      throughput.set_fraction_of_ceiling(throughput.value() / device.matmul_tflops());
    } else {
      throughput.set_value(kVectorAddBytes / (v.median_ms / 1000) / 1e9);
      throughput.set_unit("GB/s");
      throughput.set_fraction_of_ceiling(throughput.value() / device.copy_bandwidth_gbps());
    }
    v1::Verification& verification = *result.mutable_verification();
    verification.set_passed(v.verified);
    verification.set_tolerance(1e-2);
    verification.set_rel_l2_error(v.verified ? 2e-3 : 0.25);
    verification.set_max_abs_error(v.verified ? 1e-3 : 0.5);
    verification.set_elements_checked(1000);
    verification.set_method("64 sampled rows");
    result.mutable_clocks()->set_available(true);
    result.mutable_clocks()->set_sm_clock_mhz_min(1755);
    result.mutable_clocks()->set_sm_clock_mhz_max(1980);
    all_verified = all_verified && v.verified;
  }
  v1::Summary summary;
  summary.set_run_id(seed.run_id);
  summary.set_all_verified(all_verified);
  if (seed.speedup > 0) {
    v1::Speedup& speedup = *summary.add_speedups();
    speedup.set_variant(seed.variants[1].variant);
    speedup.set_baseline(seed.variants[0].variant);
    speedup.set_speedup(seed.speedup);
    speedup.set_ci_low(seed.speedup * 0.95);
    speedup.set_ci_high(seed.speedup * 1.05);
    speedup.set_ci_confidence(0.95);
    speedup.set_rounds(40);
    speedup.set_verdict(v1::VERDICT_FASTER);
  }
  outcome.summary = summary;
  return outcome;
}

}  // namespace

absl::Status SeedCohort(server::store::RunStore& store) {
  const std::string lab1 = "lab1-attention";
  const std::string lab2 = "lab2-vector-add";
  const std::vector<SeedRun> seeds = {
      {"a1", "ada", lab1, "attention", v1::RUN_STATUS_OK, {{"naive", 4.0}, {"fused", 1.2}}, 3.3},
      {"a2", "ada", lab1, "attention", v1::RUN_STATUS_OK, {{"naive", 4.1}, {"fused", 0.9}}, 4.5},
      {"b1",
       "bob",
       lab1,
       "attention",
       v1::RUN_STATUS_FAILED_VERIFICATION,
       {{"naive", 4.2}, {"fused", 0.5, false}},
       8.4},
      {"b2", "bob", lab1, "attention", v1::RUN_STATUS_OK, {{"naive", 4.3}, {"fused", 2.0}}, 2.1},
      {"p1", "", lab1, "attention", v1::RUN_STATUS_OK, {{"naive", 3.9}, {"fused", 1.5}}, 2.6},
      {"c1", "cyd", lab1, "attention", v1::RUN_STATUS_REFUSED, {}, 0},
      {"a3",
       "ada",
       lab2,
       "vector_add",
       v1::RUN_STATUS_OK,
       {{"naive", 0.08}, {"vectorized", 0.05}},
       1.6},
      {"c2",
       "cyd",
       lab2,
       "vector_add",
       v1::RUN_STATUS_OK,
       {{"naive", 0.09}, {"vectorized", 0.06}},
       1.5},
      // A typo's label that only a refused run carries: no assignment.
      {"c3", "cyd", "lab1-atention", "attention", v1::RUN_STATUS_REFUSED, {}, 0},
  };
  const v1::DeviceInfo device = TestDevice();
  int64_t unix_ms = kSeedStartUnixMs;
  for (const SeedRun& seed : seeds) {
    v1::RunRecord admitted = Admitted(seed, unix_ms);
    if (seed.status == v1::RUN_STATUS_REFUSED) {
      admitted.set_status(v1::RUN_STATUS_REFUSED);
      admitted.set_error("seq_len: 100000 is over the limit of 16384");
      KBENCH_RETURN_IF_ERROR(store.Accept(admitted));
    } else {
      KBENCH_RETURN_IF_ERROR(store.Accept(admitted));
      KBENCH_RETURN_IF_ERROR(
          store.Start(seed.run_id, device, TestStarted(seed.run_id), unix_ms + 1000));
      KBENCH_RETURN_IF_ERROR(store.Finish(seed.run_id, Outcome(seed, device, unix_ms + 5000)));
    }
    unix_ms += 60'000;
  }
  return absl::OkStatus();
}

}  // namespace kbench::testing
