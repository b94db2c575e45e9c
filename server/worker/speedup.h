// A variant's speedup over the run's baseline (its first variant) and the
// verdict drawn from it. Pure functions: no clocks, no state.
//
// The speedup is the ratio of the two medians the run reports,
// baseline_median / variant_median, so it never contradicts them. Its
// interval is a 95% percentile bootstrap over rounds: rounds are resampled
// with replacement, both samples of a round together (they ran back to
// back), and the ratio of medians is taken of each resample. The bootstrap
// is seeded with a constant, so the same samples give the same interval.
#pragma once

#include <cstddef>
#include <vector>

#include "kbench/v1/kbench.pb.h"

namespace kbench::server::worker {

struct SpeedupEstimate {
  double speedup = 0;
  double low = 0;
  double high = 0;
  // 0.95 from kMinSamplesFor95 rounds on; 0 below (no interval is stated).
  double confidence = 0;
  // Rounds the interval was drawn from.
  size_t rounds = 0;
};

// `baseline_median` / `variant_median` with the bootstrap interval of
// `baseline_ms[i]` / `variant_ms[i]` paired by round i (equal lengths;
// times > 0). The interval always holds the point. With fewer than
// kMinSamplesFor95 rounds the interval is [point, point] and confidence 0.
SpeedupEstimate EstimateSpeedup(double baseline_median, double variant_median,
                                const std::vector<double>& baseline_ms,
                                const std::vector<double>& variant_ms);

// FASTER: the whole interval above 1 and speedup >= 1 + min_effect; SLOWER:
// the whole interval below 1 and speedup <= 1 / (1 + min_effect);
// TOO_FEW_SAMPLES: fewer than kMinSamplesFor95 rounds (no 95% interval to
// judge by); NO_DIFFERENCE otherwise.
v1::Verdict VerdictOf(const SpeedupEstimate& estimate, double min_effect);

}  // namespace kbench::server::worker
