#include "server/limits.h"

namespace kbench::server {

v1::Limits DefaultLimits(const std::string& backend) {
  const bool cpu = backend == "cpu";
  v1::Limits limits;
  limits.set_max_vector_n(uint64_t(1) << 28);
  limits.set_max_batch(1024);
  limits.set_max_heads(256);
  limits.set_max_seq_len(cpu ? 8192 : 65536);
  limits.set_max_head_dim(256);
  limits.set_max_attention_elements(uint64_t(1) << (cpu ? 26 : 30));
  limits.set_max_score_elements(uint64_t(1) << (cpu ? 28 : 33));
  limits.set_max_attention_gflop(cpu ? 20 : 1e6);
  limits.set_max_warmup_runs(100);
  limits.set_max_samples(100000);
  limits.set_max_time_budget_ms(60000);
  limits.set_max_variants(4);
  limits.set_max_label_length(256);
  limits.set_max_queue(64);
  return limits;
}

TimingPlan DefaultTiming() { return TimingPlan{}; }

v1::TimingOptions ToProto(const TimingPlan& plan) {
  v1::TimingOptions t;
  t.set_warmup_runs(plan.warmup_runs);
  t.set_min_samples(plan.min_samples);
  t.set_min_time_ms(plan.min_time_ms);
  t.set_target_rse(plan.target_rse);
  t.set_time_budget_ms(plan.time_budget_ms);
  t.set_max_samples(plan.max_samples);
  t.set_mode(plan.mode);
  return t;
}

}  // namespace kbench::server
