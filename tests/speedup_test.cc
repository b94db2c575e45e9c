// The speedup and its verdict (server/worker/speedup.h): the ratio of the
// medians, a bootstrap interval over rounds that covers the true ratio,
// and no verdict from too few rounds.
#include "server/worker/speedup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "server/worker/statistics.h"

namespace kbench::server::worker {
namespace {

double Median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return Quantile(x, 0.5);
}

TEST(EstimateSpeedup, IsTheRatioOfTheMediansEvenWhenPairedRatiosSayOtherwise) {
  // The medians say the variant is faster (10 ms against 9 ms); the median
  // of the paired ratios (0.5 0.5 0.5 1.11 0.5 0.5 0.5) would say 2x slower.
  const std::vector<double> base = {1, 1, 1, 10, 10, 10, 10};
  const std::vector<double> mine = {2, 2, 2, 9, 20, 20, 20};
  const SpeedupEstimate e = EstimateSpeedup(Median(base), Median(mine), base, mine);
  EXPECT_DOUBLE_EQ(e.speedup, 10.0 / 9.0);
  EXPECT_EQ(e.rounds, 7u);
  EXPECT_LE(e.low, e.speedup);
  EXPECT_GE(e.high, e.speedup);
  EXPECT_EQ(e.confidence, 0.95);
}

TEST(EstimateSpeedup, GivesTheSameIntervalForTheSameSamples) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(1.0, 0.05);
  std::vector<double> base, mine;
  for (int i = 0; i < 40; ++i) {
    base.push_back(2 * noise(rng));
    mine.push_back(noise(rng));
  }
  const SpeedupEstimate a = EstimateSpeedup(Median(base), Median(mine), base, mine);
  const SpeedupEstimate b = EstimateSpeedup(Median(base), Median(mine), base, mine);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_LT(a.low, a.high);
}

TEST(EstimateSpeedup, CoversTheTrueRatioAboutNinetyFivePercentOfTheTime) {
  // Times of true median 2 and 1 (ratio 2) with 10% noise, 30 rounds each.
  std::mt19937_64 rng(20261205);
  std::normal_distribution<double> noise(1.0, 0.1);
  int covered = 0;
  constexpr int kTrials = 400;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> base, mine;
    for (int i = 0; i < 30; ++i) {
      base.push_back(2 * noise(rng));
      mine.push_back(noise(rng));
    }
    const SpeedupEstimate e = EstimateSpeedup(Median(base), Median(mine), base, mine);
    covered += e.low <= 2.0 && 2.0 <= e.high;
  }
  // 95% nominal; a percentile bootstrap of 30 runs a little under.
  EXPECT_GT(covered, kTrials * 88 / 100);
  EXPECT_LT(covered, kTrials * 99 / 100);
}

TEST(EstimateSpeedup, StatesNoIntervalBelowTheRoundsOfA95PercentOne) {
  const std::vector<double> base(kMinSamplesFor95 - 1, 2.0), mine(kMinSamplesFor95 - 1, 1.0);
  const SpeedupEstimate e = EstimateSpeedup(2.0, 1.0, base, mine);
  EXPECT_EQ(e.confidence, 0.0);
  EXPECT_EQ(e.low, 2.0);
  EXPECT_EQ(e.high, 2.0);
  EXPECT_EQ(VerdictOf(e, 0.02), v1::VERDICT_TOO_FEW_SAMPLES);
}

TEST(VerdictOf, NeedsTheWholeIntervalOnOneSideAndTheMinimumEffect) {
  SpeedupEstimate e;
  e.rounds = kMinSamplesFor95;
  e.confidence = 0.95;
  e.speedup = 1.5, e.low = 1.2, e.high = 1.8;
  EXPECT_EQ(VerdictOf(e, 0.02), v1::VERDICT_FASTER);
  e.speedup = 0.5, e.low = 0.4, e.high = 0.6;
  EXPECT_EQ(VerdictOf(e, 0.02), v1::VERDICT_SLOWER);
  e.speedup = 1.1, e.low = 0.9, e.high = 1.3;  // the interval holds 1
  EXPECT_EQ(VerdictOf(e, 0.02), v1::VERDICT_NO_DIFFERENCE);
  e.speedup = 1.01, e.low = 1.005, e.high = 1.015;  // under the 2% effect
  EXPECT_EQ(VerdictOf(e, 0.02), v1::VERDICT_NO_DIFFERENCE);
  e.rounds = kMinSamplesFor95 - 1;
  e.speedup = 1.5, e.low = 1.2, e.high = 1.8;
  EXPECT_EQ(VerdictOf(e, 0.02), v1::VERDICT_TOO_FEW_SAMPLES);
}

}  // namespace
}  // namespace kbench::server::worker
