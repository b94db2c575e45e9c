// Runs for store and history tests: an admitted run, and an outcome with
// every field set (results, summary, samples of two variants).
#pragma once

#include <cstdint>
#include <string>

#include "kbench/v1/history.pb.h"
#include "server/store/run_store.h"

namespace kbench::testing {

// QUEUED, accepted at `unix_ms`, with an attention request.
inline v1::RunRecord AdmittedRun(const std::string& run_id, int64_t unix_ms,
                                 const std::string& label = "lab1",
                                 const std::string& op = "attention",
                                 const std::string& user = "ada") {
  v1::RunRecord run;
  run.set_run_id(run_id);
  run.set_user(user);
  run.set_peer("ipv4:127.0.0.1:50312");
  run.set_label(label);
  run.set_op(op);
  run.set_status(v1::RUN_STATUS_QUEUED);
  run.set_accepted_unix_ms(unix_ms);
  v1::RunRequest& request = *run.mutable_request();
  request.mutable_attention()->set_batch(2);
  request.mutable_attention()->set_heads(4);
  request.mutable_attention()->set_seq_len(1000);
  request.mutable_attention()->set_head_dim(64);
  request.mutable_attention()->set_causal(true);
  request.set_dtype(v1::DTYPE_BF16);
  request.add_variants("naive");
  request.add_variants("fused");
  request.mutable_timing()->set_min_samples(10);
  request.mutable_timing()->set_target_rse(0.005);
  request.set_seed(1234);
  request.set_label(label);
  return run;
}

inline v1::DeviceInfo TestDevice() {
  v1::DeviceInfo device;
  device.set_backend("cuda");
  device.set_name("NVIDIA H200");
  device.set_sm_count(132);
  device.set_copy_bandwidth_gbps(4237.5);
  device.set_matmul_tflops(612.25);
  device.set_healthy(true);
  return device;
}

inline v1::Started TestStarted(const std::string& run_id) {
  v1::Started started;
  started.set_run_id(run_id);
  started.set_backend("cuda");
  started.set_device("NVIDIA H200");
  started.set_seed(1234);
  started.add_variants("naive");
  started.add_variants("fused");
  started.set_timing_method("CUDA events around the kernel, L2 flushed");
  return started;
}

// OK, ended at `unix_ms`.
inline server::store::RunOutcome FullOutcome(const std::string& run_id, int64_t unix_ms) {
  server::store::RunOutcome outcome;
  outcome.status = v1::RUN_STATUS_OK;
  outcome.unix_ms = unix_ms;
  for (const char* variant : {"naive", "fused"}) {
    v1::VariantResult& result = *outcome.results.Add();
    result.set_variant(variant);
    result.mutable_stats()->set_samples(3);
    result.mutable_stats()->set_median_ms(1.25);
    result.mutable_throughput()->set_value(311.5);
    result.mutable_throughput()->set_unit("TFLOP/s");
    result.mutable_verification()->set_passed(true);
    result.mutable_verification()->set_rel_l2_error(1e-3);
    result.mutable_clocks()->set_available(true);
    result.mutable_clocks()->set_sm_clock_mhz_max(1980);
    v1::SampleSeries& series = *outcome.samples.Add();
    series.set_variant(variant);
    for (double ms : {1.5, 1.25, 1.0625}) series.add_ms(ms);
  }
  v1::Summary summary;
  summary.set_run_id(run_id);
  summary.set_all_verified(true);
  summary.set_wall_ms(812.5);
  v1::Speedup& speedup = *summary.add_speedups();
  speedup.set_variant("fused");
  speedup.set_baseline("naive");
  speedup.set_speedup(3.5);
  speedup.set_verdict(v1::VERDICT_FASTER);
  outcome.summary = summary;
  return outcome;
}

}  // namespace kbench::testing
