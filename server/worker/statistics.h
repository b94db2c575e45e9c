// Summary statistics of timing samples. Pure functions: no clocks, no state.
#pragma once

#include <cstddef>
#include <vector>

#include "kbench/v1/kbench.pb.h"

namespace kbench::server::worker {

// Linear interpolation between order statistics, q in [0, 1]; sorted input.
double Quantile(const std::vector<double>& sorted, double q);

// The fewest samples for which an interval of 95% is stated (a median's
// here, a speedup's in speedup.h); below it the statistics are too thin to
// judge by.
inline constexpr size_t kMinSamplesFor95 = 6;

// A point estimate of the median with a distribution-free 95% interval: the
// order statistics at ranks n/2 -+ 0.98 sqrt(n) (normal approximation to the
// binomial), which cover the true median with about 95% probability for any
// continuous distribution. With fewer than kMinSamplesFor95 samples the
// interval is [min, max].
struct MedianInterval {
  double median = 0;
  double low = 0;
  double high = 0;
  // 0.95, or for fewer than kMinSamplesFor95 samples the coverage of
  // [min, max]: 1 - 2^(1 - n).
  double confidence = 0;
};
MedianInterval MedianWithInterval(std::vector<double> samples);

// std / sqrt(n) / mean; infinity for fewer than 2 samples.
double RelativeStandardError(const std::vector<double>& samples);

// Every field of Statistics but stop_reason (rse absent for one sample);
// samples must be non-empty.
v1::Statistics Summarize(const std::vector<double>& samples);

}  // namespace kbench::server::worker
