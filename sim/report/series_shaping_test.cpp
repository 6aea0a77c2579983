#include "sim/report/series_shaping.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

namespace llm {
namespace {

TEST(DownsampleEnvelope, SmallSeriesAreUnchanged) {
  const XySeries s{{0, 1, 2}, {5, 3, 4}};
  const XySeries d = downsample_envelope(s, 10);
  EXPECT_EQ(d.x, s.x);
  EXPECT_EQ(d.y, s.y);
}

TEST(DownsampleEnvelope, KeepsEachRunsLowAndHigh) {
  // 10 points into 6: the ends and two runs of 4 points between.
  const XySeries s{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 5, 1, 9, 2, 7, 3, 3, 8, 4}};
  const XySeries d = downsample_envelope(s, 6);
  EXPECT_EQ(d.x, (std::vector<double>{0, 2, 3, 6, 8, 9}));
  EXPECT_EQ(d.y, (std::vector<double>{0, 1, 9, 3, 8, 4}));
}

RC_GTEST_PROP(DownsampleEnvelope, BoundedOrderedAndPeaksSurvive, ()) {
  const auto ys =
      *rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(rc::gen::arbitrary<int>()));
  const size_t max_points = *rc::gen::inRange<size_t>(4, 50);
  XySeries s;
  for (size_t i = 0; i < ys.size(); ++i) {
    s.x.push_back(static_cast<double>(i));
    s.y.push_back(ys[i]);
  }
  const XySeries d = downsample_envelope(s, max_points);
  RC_ASSERT(d.x.size() == d.y.size());
  RC_ASSERT(d.x.size() <= max_points);
  RC_ASSERT(std::is_sorted(d.x.begin(), d.x.end()));
  RC_ASSERT(d.x.front() == s.x.front());
  RC_ASSERT(d.x.back() == s.x.back());
  RC_ASSERT(*std::max_element(d.y.begin(), d.y.end()) == *std::max_element(s.y.begin(), s.y.end()));
  RC_ASSERT(*std::min_element(d.y.begin(), d.y.end()) == *std::min_element(s.y.begin(), s.y.end()));
  for (size_t i = 0; i < d.x.size(); ++i) {
    RC_ASSERT(d.y[i] == s.y[static_cast<size_t>(d.x[i])]);  // real points only
  }
}

TEST(CounterRate, PerSecondBetweenSamples) {
  const XySeries r = counter_rate({0, 5, 10, 20}, {0, 10, 10, 40});
  EXPECT_EQ(r.x, (std::vector<double>{5, 10, 20}));
  EXPECT_EQ(r.y, (std::vector<double>{2, 0, 3}));
  // A reset counts from zero.
  EXPECT_EQ(counter_rate({0, 1}, {10, 4}).y, (std::vector<double>{4}));
  EXPECT_TRUE(counter_rate({0}, {3}).x.empty());
}

TEST(CdfOfSorted, EverySampleWhenFew) {
  const XySeries c = cdf_of_sorted({1, 2, 2, 4}, 10);
  EXPECT_EQ(c.x, (std::vector<double>{1, 2, 2, 4}));
  EXPECT_EQ(c.y, (std::vector<double>{0.25, 0.5, 0.75, 1}));
  EXPECT_TRUE(cdf_of_sorted({}, 10).x.empty());
}

RC_GTEST_PROP(CdfOfSorted, BoundedMonotoneFromMinToMax, ()) {
  auto values =
      *rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 10000)));
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t max_points = *rc::gen::inRange<size_t>(2, 40);
  const XySeries c = cdf_of_sorted(sorted, max_points);
  RC_ASSERT(c.x.size() <= max_points);
  RC_ASSERT(c.x.size() == std::min(max_points, sorted.size()));
  RC_ASSERT(std::is_sorted(c.x.begin(), c.x.end()));
  RC_ASSERT(std::is_sorted(c.y.begin(), c.y.end()));
  RC_ASSERT(c.x.back() == sorted.back());
  RC_ASSERT(c.y.back() == 1.0);
  if (sorted.size() > max_points) RC_ASSERT(c.x.front() == sorted.front());
}

TEST(CdfOfSketch, QuantilesUpToOne) {
  LogSketch sketch;
  for (int i = 1; i <= 100; ++i) sketch.add(i / 100.0);
  const XySeries c = cdf_of_sketch(sketch, 4);
  EXPECT_EQ(c.y, (std::vector<double>{0.25, 0.5, 0.75, 1}));
  ASSERT_EQ(c.x.size(), 4u);
  EXPECT_NEAR(c.x[1], 0.5, 0.001);
  EXPECT_DOUBLE_EQ(c.x[3], 1.0);
  EXPECT_TRUE(std::is_sorted(c.x.begin(), c.x.end()));
  EXPECT_TRUE(cdf_of_sketch(LogSketch(), 4).x.empty());
}

}  // namespace
}  // namespace llm
