#include "server/worker/speedup.h"

#include <algorithm>
#include <cstdint>
#include <random>

#include "server/worker/statistics.h"

namespace kbench::server::worker {
namespace {

// Resamples per interval: enough for stable 2.5% and 97.5% percentiles
// (25 resamples beyond each), and at most 2 x 1000 x 100000 (max_samples)
// element moves once at the end of a run.
constexpr size_t kResamples = 1000;
constexpr uint64_t kBootstrapSeed = 0x6b62656e6368;  // "kbench"

// The median of `x`, reordering it.
double MedianInPlace(std::vector<double>& x) {
  const size_t n = x.size();
  const auto mid = x.begin() + std::ptrdiff_t(n / 2);
  std::nth_element(x.begin(), mid, x.end());
  if (n % 2 == 1) return *mid;
  return (*mid + *std::max_element(x.begin(), mid)) / 2;
}

}  // namespace

SpeedupEstimate EstimateSpeedup(double baseline_median, double variant_median,
                                const std::vector<double>& baseline_ms,
                                const std::vector<double>& variant_ms) {
  SpeedupEstimate out;
  out.speedup = baseline_median / variant_median;
  out.low = out.high = out.speedup;
  out.rounds = std::min(baseline_ms.size(), variant_ms.size());
  if (out.rounds < kMinSamplesFor95) return out;
  std::mt19937_64 rng(kBootstrapSeed);
  std::uniform_int_distribution<size_t> pick(0, out.rounds - 1);
  std::vector<double> ratios, a(out.rounds), b(out.rounds);
  ratios.reserve(kResamples);
  for (size_t r = 0; r < kResamples; ++r) {
    for (size_t i = 0; i < out.rounds; ++i) {
      const size_t round = pick(rng);
      a[i] = baseline_ms[round];
      b[i] = variant_ms[round];
    }
    ratios.push_back(MedianInPlace(a) / MedianInPlace(b));
  }
  std::sort(ratios.begin(), ratios.end());
  out.low = std::min(out.speedup, Quantile(ratios, 0.025));
  out.high = std::max(out.speedup, Quantile(ratios, 0.975));
  out.confidence = 0.95;
  return out;
}

v1::Verdict VerdictOf(const SpeedupEstimate& estimate, double min_effect) {
  if (estimate.rounds < kMinSamplesFor95) return v1::VERDICT_TOO_FEW_SAMPLES;
  if (estimate.low > 1 && estimate.speedup >= 1 + min_effect) return v1::VERDICT_FASTER;
  if (estimate.high < 1 && estimate.speedup <= 1 / (1 + min_effect)) return v1::VERDICT_SLOWER;
  return v1::VERDICT_NO_DIFFERENCE;
}

}  // namespace kbench::server::worker
