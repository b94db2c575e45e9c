#include "server/worker/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kbench::server::worker {
namespace {

double Mean(const std::vector<double>& x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
}

double SampleStd(const std::vector<double>& x, double mean) {
  if (x.size() < 2) return 0;
  double sum_sq = 0;
  for (double v : x) sum_sq += (v - mean) * (v - mean);
  return std::sqrt(sum_sq / double(x.size() - 1));
}

}  // namespace

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}

MedianInterval MedianWithInterval(std::vector<double> samples) {
  MedianInterval out;
  if (samples.empty()) return out;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  out.median = Quantile(samples, 0.5);
  if (n < kMinSamplesFor95) {
    out.low = samples.front();
    out.high = samples.back();
    out.confidence = 1 - std::pow(0.5, double(n) - 1);
    return out;
  }
  out.confidence = 0.95;
  const double half_width = 0.98 * std::sqrt(double(n));  // 1.96 * sqrt(n) / 2
  // 1-based ranks, clamped to the sample.
  const double lo_rank = std::max(1.0, std::floor(double(n) / 2 - half_width));
  const double hi_rank = std::min(double(n), std::ceil(double(n) / 2 + 1 + half_width));
  out.low = samples[size_t(lo_rank) - 1];
  out.high = samples[size_t(hi_rank) - 1];
  return out;
}

double RelativeStandardError(const std::vector<double>& samples) {
  if (samples.size() < 2) return std::numeric_limits<double>::infinity();
  const double mean = Mean(samples);
  if (mean <= 0) return std::numeric_limits<double>::infinity();
  return SampleStd(samples, mean) / std::sqrt(double(samples.size())) / mean;
}

v1::Statistics Summarize(const std::vector<double>& samples) {
  v1::Statistics stats;
  if (samples.empty()) return stats;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double mean = Mean(sorted);
  const MedianInterval median = MedianWithInterval(sorted);
  stats.set_samples(uint32_t(sorted.size()));
  stats.set_median_ms(median.median);
  stats.set_mean_ms(mean);
  stats.set_std_ms(SampleStd(sorted, mean));
  stats.set_min_ms(sorted.front());
  stats.set_max_ms(sorted.back());
  stats.set_p10_ms(Quantile(sorted, 0.1));
  stats.set_p90_ms(Quantile(sorted, 0.9));
  stats.set_median_ci_low_ms(median.low);
  stats.set_median_ci_high_ms(median.high);
  stats.set_median_ci_confidence(median.confidence);
  if (sorted.size() > 1) stats.set_rse(RelativeStandardError(sorted));
  return stats;
}

}  // namespace kbench::server::worker
