// A cohort's runs for the dashboard tests, written into a RunStore through
// its public calls (Accept, Start, Finish), as the front would write them.
//
// Assignment "lab1-attention" (attention B=2 H=4 N=1000 d=64 causal, bf16,
// naive then fused):
//   a1 ada  ok                   naive 4.0 ms, fused 1.2 ms, speedup 3.3
//   a2 ada  ok                   naive 4.1 ms, fused 0.9 ms, speedup 4.5
//   b1 bob  failed_verification  naive 4.2 ms, fused 0.5 ms (wrong output)
//   b2 bob  ok                   naive 4.3 ms, fused 2.0 ms, speedup 2.1
//   p1 (no user, peer ipv4:127.0.0.2:40000, so learner "127.0.0.2")
//           ok                   naive 3.9 ms, fused 1.5 ms, speedup 2.6
//   c1 cyd  refused
// Assignment "lab2-vector-add" (vector add n=16777216, fp32, naive then
// vectorized):
//   a3 ada  ok                   naive 0.08 ms, vectorized 0.05 ms
//   c2 cyd  ok                   naive 0.09 ms, vectorized 0.06 ms
// Runs are accepted a minute apart from kSeedStartUnixMs, in the order
// listed, and ran on device 0 (TestDevice), whose SM clock they saw at
// 1980 MHz.
#pragma once

#include "absl/status/status.h"
#include "server/store/run_store.h"

namespace kbench::testing {

inline constexpr int64_t kSeedStartUnixMs = 1'700'000'000'000;

absl::Status SeedCohort(server::store::RunStore& store);

}  // namespace kbench::testing
