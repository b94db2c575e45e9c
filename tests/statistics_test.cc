// Unit tests of server/worker/statistics.h: quantiles, the median and its
// distribution-free interval, the relative standard error and Summarize.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "server/worker/statistics.h"

namespace kbench::server::worker {
namespace {

TEST(Quantile, InterpolatesLinearlyBetweenOrderStatistics) {
  const std::vector<double> sorted = {1, 2, 4, 8};
  // Position q * (n - 1) = q * 3.
  EXPECT_DOUBLE_EQ(Quantile(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(Quantile(sorted, 0.25), 1.75);  // 0.75: 1 + 0.75 * (2 - 1)
  EXPECT_DOUBLE_EQ(Quantile(sorted, 0.5), 3.0);    // 1.5:  2 + 0.5 * (4 - 2)
  EXPECT_DOUBLE_EQ(Quantile(sorted, 0.9), 6.8);    // 2.7:  4 + 0.7 * (8 - 4)
  EXPECT_DOUBLE_EQ(Quantile(sorted, 1.0), 8.0);
}

TEST(Quantile, HitsOrderStatisticsExactlyAtTheirPositions) {
  const std::vector<double> sorted = {10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(Quantile(sorted, 0.25), 20.0);
  EXPECT_DOUBLE_EQ(Quantile(sorted, 0.75), 40.0);
}

TEST(Quantile, OfOneSampleIsThatSample) {
  EXPECT_DOUBLE_EQ(Quantile({7.5}, 0.0), 7.5);
  EXPECT_DOUBLE_EQ(Quantile({7.5}, 0.5), 7.5);
  EXPECT_DOUBLE_EQ(Quantile({7.5}, 1.0), 7.5);
}

TEST(MedianWithInterval, MedianOfAnOddCountIsTheMiddleSample) {
  EXPECT_DOUBLE_EQ(MedianWithInterval({3, 1, 2}).median, 2.0);
  EXPECT_DOUBLE_EQ(MedianWithInterval({9, 1, 5, 7, 3, 11, 2}).median, 5.0);
}

TEST(MedianWithInterval, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(MedianWithInterval({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(MedianWithInterval({10, 0, 6, 2, 8, 4}).median, 5.0);
}

TEST(MedianWithInterval, FewerThanSixSamplesGiveMinToMax) {
  for (const std::vector<double>& samples :
       {std::vector<double>{5}, {5, 1}, {5, 1, 3}, {2, 9, 4, 7, 3}}) {
    const MedianInterval m = MedianWithInterval(samples);
    EXPECT_EQ(m.low, *std::min_element(samples.begin(), samples.end()));
    EXPECT_EQ(m.high, *std::max_element(samples.begin(), samples.end()));
  }
}

TEST(MedianWithInterval, IntervalOfAHundredSamplesIsAroundTheMedianRanks) {
  // The values 1..100 shuffled: a value is its own 1-based rank.
  std::vector<double> samples(100);
  std::iota(samples.begin(), samples.end(), 1.0);
  std::shuffle(samples.begin(), samples.end(), std::mt19937(17));
  const MedianInterval m = MedianWithInterval(samples);
  EXPECT_DOUBLE_EQ(m.median, 50.5);
  EXPECT_LT(m.low, m.median);
  EXPECT_GT(m.high, m.median);
  // Sample values, not interpolations.
  EXPECT_EQ(m.low, std::floor(m.low));
  EXPECT_EQ(m.high, std::floor(m.high));
  // Normal approximation: ranks 50 -+ 1.96 * sqrt(100) / 2 = 50 -+ 9.8.
  EXPECT_GE(m.low, 35);
  EXPECT_LE(m.low, 45);
  EXPECT_GE(m.high, 56);
  EXPECT_LE(m.high, 66);
}

TEST(MedianWithInterval, ContainsTheMedianAtEverySampleCount) {
  std::mt19937 rng(3);
  std::exponential_distribution<double> dist(1.0);
  for (int n = 1; n <= 200; ++n) {
    std::vector<double> samples(n);
    for (double& s : samples) s = dist(rng);
    const MedianInterval m = MedianWithInterval(samples);
    EXPECT_LE(m.low, m.median) << "n = " << n;
    EXPECT_LE(m.median, m.high) << "n = " << n;
    EXPECT_NE(std::find(samples.begin(), samples.end(), m.low), samples.end());
    EXPECT_NE(std::find(samples.begin(), samples.end(), m.high), samples.end());
  }
}

TEST(MedianWithInterval, CoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  // Samples of U(0, 1), true median 0.5; 2000 trials of n = 100.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  int covered = 0;
  constexpr int kTrials = 2000;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> samples(100);
    for (double& s : samples) s = dist(rng);
    const MedianInterval m = MedianWithInterval(samples);
    covered += m.low <= 0.5 && 0.5 <= m.high;
  }
  const double coverage = double(covered) / kTrials;
  EXPECT_GT(coverage, 0.93);
  EXPECT_LT(coverage, 0.99);
}

TEST(RelativeStandardError, IsStdOverRootNOverMean) {
  // {1, 2, 3, 4}: mean 2.5, sample variance (2.25 + 0.25 + 0.25 + 2.25) / 3.
  const double std_dev = std::sqrt(5.0 / 3.0);  // 1.2910
  EXPECT_NEAR(RelativeStandardError({1, 2, 3, 4}), std_dev / 2.0 / 2.5, 1e-12);
  EXPECT_NEAR(RelativeStandardError({4, 3, 2, 1}), 0.2581989, 1e-7);
}

TEST(RelativeStandardError, IsZeroForIdenticalSamples) {
  EXPECT_EQ(RelativeStandardError({2.0, 2.0, 2.0}), 0.0);
}

TEST(RelativeStandardError, IsInfiniteForFewerThanTwoSamples) {
  EXPECT_TRUE(std::isinf(RelativeStandardError({3.0})));
  EXPECT_TRUE(std::isinf(RelativeStandardError({})));
}

TEST(Summarize, FillsEveryStatistic) {
  const v1::Statistics s = Summarize({30, 10, 50, 20, 40});
  EXPECT_EQ(s.samples(), 5u);
  EXPECT_DOUBLE_EQ(s.min_ms(), 10);
  EXPECT_DOUBLE_EQ(s.max_ms(), 50);
  EXPECT_DOUBLE_EQ(s.mean_ms(), 30);
  EXPECT_DOUBLE_EQ(s.median_ms(), 30);
  // Positions 0.1 * 4 = 0.4 and 0.9 * 4 = 3.6.
  EXPECT_DOUBLE_EQ(s.p10_ms(), 14);
  EXPECT_DOUBLE_EQ(s.p90_ms(), 46);
  // Squared deviations 400 + 100 + 0 + 100 + 400 over n - 1 = 4.
  EXPECT_DOUBLE_EQ(s.std_ms(), std::sqrt(250.0));
  EXPECT_DOUBLE_EQ(s.rse(), std::sqrt(250.0) / std::sqrt(5.0) / 30);
  // Five samples: the interval is [min, max].
  EXPECT_DOUBLE_EQ(s.median_ci_low_ms(), 10);
  EXPECT_DOUBLE_EQ(s.median_ci_high_ms(), 50);
  EXPECT_EQ(s.stop_reason(), v1::STOP_REASON_UNSPECIFIED);
}

TEST(Summarize, AgreesWithMedianWithIntervalOnLargeSamples) {
  std::vector<double> samples(100);
  std::iota(samples.begin(), samples.end(), 1.0);
  std::shuffle(samples.begin(), samples.end(), std::mt19937(5));
  const v1::Statistics s = Summarize(samples);
  const MedianInterval m = MedianWithInterval(samples);
  EXPECT_EQ(s.samples(), 100u);
  EXPECT_DOUBLE_EQ(s.median_ms(), 50.5);
  EXPECT_DOUBLE_EQ(s.mean_ms(), 50.5);
  EXPECT_DOUBLE_EQ(s.p10_ms(), 10.9);  // position 9.9 of 1..100
  EXPECT_DOUBLE_EQ(s.p90_ms(), 90.1);  // position 89.1
  EXPECT_EQ(s.median_ci_low_ms(), m.low);
  EXPECT_EQ(s.median_ci_high_ms(), m.high);
}

TEST(Summarize, OneSampleHasNoSpreadAndAFiniteRse) {
  const v1::Statistics s = Summarize({4.25});
  EXPECT_EQ(s.samples(), 1u);
  EXPECT_DOUBLE_EQ(s.min_ms(), 4.25);
  EXPECT_DOUBLE_EQ(s.max_ms(), 4.25);
  EXPECT_DOUBLE_EQ(s.median_ms(), 4.25);
  EXPECT_DOUBLE_EQ(s.mean_ms(), 4.25);
  EXPECT_EQ(s.std_ms(), 0.0);
  EXPECT_TRUE(std::isfinite(s.rse()));
}

}  // namespace
}  // namespace kbench::server::worker
