#include "core/sample_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace llm {
namespace {

struct PercentileCase {
  const char* name;
  std::vector<double> values;
  double mean, p50, p90, p99, max;
};

// Expected figures are numpy.percentile's default (linear between closest ranks).
TEST(ExactSamples, PercentilesInterpolateBetweenClosestRanksAsNumpyDoes) {
  std::vector<double> one_to_101;
  for (int i = 1; i <= 101; ++i) one_to_101.push_back(i);
  const PercentileCase cases[] = {
      {"one value", {10}, 10, 10, 10, 10, 10},
      {"two values", {1, 3}, 2, 2, 2.8, 2.98, 3},
      {"four values", {1, 2, 3, 4}, 2.5, 2.5, 3.7, 3.97, 4},
      {"unsorted", {5, 1, 3}, 3, 3, 4.6, 4.96, 5},
      {"ties", {2, 2, 2, 8}, 3.5, 2, 6.2, 7.82, 8},
      {"1..101 hits ranks exactly", one_to_101, 51, 51, 91, 100, 101},
  };
  for (const PercentileCase& c : cases) {
    SCOPED_TRACE(c.name);
    ExactSamples s;
    for (double v : c.values) s.add(v);
    const Distribution d = s.summarize();
    EXPECT_EQ(d.count, static_cast<int64_t>(c.values.size()));
    EXPECT_NEAR(d.mean, c.mean, 1e-12);
    EXPECT_NEAR(d.p50, c.p50, 1e-12);
    EXPECT_NEAR(d.p90, c.p90, 1e-12);
    EXPECT_NEAR(d.p99, c.p99, 1e-12);
    EXPECT_EQ(d.max, c.max);
  }
}

TEST(ExactSamples, NoValuesGiveAnEmptyDistribution) {
  ExactSamples s;
  const Distribution d = s.summarize();
  EXPECT_EQ(d.count, 0);
  EXPECT_EQ(d.p50, 0);
  EXPECT_EQ(d.max, 0);
}

TEST(LogSketch, QuantilesAreWithinTheBucketErrorOfTheExactRank) {
  LogSketch sketch;
  for (int i = 1; i <= 1000; ++i) sketch.add(1e-3 * i);  // 1 ms .. 1 s
  const Distribution d = sketch.summarize();
  EXPECT_EQ(d.count, 1000);
  EXPECT_NEAR(d.mean, 0.5005, 1e-12);
  EXPECT_EQ(d.max, 1.0);
  // The sketch answers the value of rank ceil(q * n), to within half a bucket (0.05%).
  EXPECT_NEAR(d.p50, 0.500, 0.500 * 5e-4);
  EXPECT_NEAR(d.p90, 0.900, 0.900 * 5e-4);
  EXPECT_NEAR(d.p99, 0.990, 0.990 * 5e-4);
}

TEST(LogSketch, ZerosCountAsExactZerosAndTheMaximumBoundsEveryQuantile) {
  LogSketch sketch;
  for (int i = 0; i < 60; ++i) sketch.add(0);
  for (int i = 0; i < 40; ++i) sketch.add(0.25);
  const Distribution d = sketch.summarize();
  EXPECT_EQ(d.p50, 0);
  EXPECT_NEAR(d.p90, 0.25, 0.25 * 5e-4);
  EXPECT_LE(d.p99, 0.25);
  EXPECT_EQ(d.max, 0.25);
}

}  // namespace
}  // namespace llm
