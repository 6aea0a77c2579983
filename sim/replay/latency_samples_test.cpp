#include "sim/replay/latency_samples.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace llm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 1, 2, ..., n seconds of TTFT and `failed` refused sequences.
LatencySamples ttft_one_to(int n, int64_t failed) {
  LatencySamples s;
  s.sorted["ttft"];  // the distribution exists, with or without samples
  for (int i = 1; i <= n; ++i) s.sorted["ttft"].push_back(i);
  s.failed = failed;
  s.failed_gaps = failed * 10;
  for (int i = 0; i < 20; ++i) s.itl.add(0.01);
  return s;
}

TEST(LatencySamples, ServedViewIsTheSamplesAndTheSloViewCountsFailuresAsInfinitelySlow) {
  struct Row {
    const char* name;
    int n;
    int64_t failed;
    double level;
    bool count_failed;
    double want;
  };
  for (const Row& row : {
           Row{"served p50", 100, 0, 50, false, 50.5},
           Row{"served p99.9", 1001, 0, 99.9, false, 1000},
           Row{"served p75 ignores failures", 100, 300, 75, false, 75.25},
           Row{"no failures: SLO view equals the served one", 100, 0, 99, true, 99.01},
           // 100 served + 100 failed: the median's rank 99.5 touches an infinite one.
           Row{"half failed: p50 is infinite", 100, 100, 50, true, kInf},
           // rank 0.25 x 199 = 49.75 of the served: between 50 and 51.
           Row{"half failed: p25 is over the served", 100, 100, 25, true, 50.75},
           // The case: 59 served, 341 refused; p99 over 400 is infinite.
           Row{"341 of 400 refused: p99 infinite", 59, 341, 99, true, kInf},
           Row{"341 of 400 refused: p10 still finite", 59, 341, 10, true, 40.9},
           Row{"no samples, no failures: 0 as the summary", 0, 0, 99, true, 0},
           Row{"no samples, only failures: infinite", 0, 5, 1, true, kInf},
       }) {
    SCOPED_TRACE(row.name);
    const LatencySamples s = ttft_one_to(row.n, row.failed);
    const double got = latency_percentile(s, "ttft", row.level, row.count_failed);
    if (std::isinf(row.want)) {
      EXPECT_TRUE(std::isinf(got)) << got;
    } else {
      EXPECT_NEAR(got, row.want, 1e-9);
    }
  }
}

TEST(LatencySamples, ItlCountsTheGapsAFailedSequenceWouldHaveMade) {
  LatencySamples s = ttft_one_to(10, 0);
  EXPECT_NEAR(latency_percentile(s, "itl", 99, true), 0.01, 0.01 * 5e-4);
  EXPECT_EQ(latency_count(s, "itl", true), 20);
  s.failed = 1;
  s.failed_gaps = 10;  // 20 gaps served, 10 missing: a third of all gaps is infinite
  EXPECT_EQ(latency_count(s, "itl", true), 30);
  EXPECT_EQ(latency_count(s, "itl", false), 20);
  EXPECT_TRUE(std::isinf(latency_percentile(s, "itl", 90, true)));
  EXPECT_NEAR(latency_percentile(s, "itl", 50, true), 0.01, 0.01 * 5e-4);
  EXPECT_TRUE(std::isnan(latency_percentile(s, "nonsense", 50, true)));
}

TEST(LatencySamples, AttainmentIsTheShareOfSequencesMeetingEveryTargetFailuresIncluded) {
  LatencySamples s;
  // ttft, tpot, e2e; the last two did not complete (a refusal, an abort).
  for (const SequenceOutcome& o : {SequenceOutcome{true, 0.5, 0.05, 10},
                                   {true, 1.5, 0.05, 10},
                                   {true, 0.5, 0.2, 10},
                                   {true, 0.5, 0.0, 40},
                                   {false, 0, 0, 0},
                                   {false, 0.1, 0.01, 1}}) {
    s.outcomes.push_back(o);
  }
  struct Row {
    const char* name;
    GoodputTargets targets;
    int64_t good;
  };
  for (const Row& row : {
           Row{"ttft 1 s", {1.0, std::nullopt, std::nullopt}, 3},
           Row{"tpot 100 ms (one token: tpot 0 passes)", {std::nullopt, 0.1, std::nullopt}, 3},
           Row{"ttft and tpot", {1.0, 0.1, std::nullopt}, 2},
           Row{"ttft, tpot and e2e 30 s", {1.0, 0.1, 30.0}, 1},
           Row{"a target on the boundary is met", {1.5, std::nullopt, std::nullopt}, 4},
       }) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(good_sequences(s, row.targets), row.good);
    EXPECT_DOUBLE_EQ(attainment(s, row.targets), static_cast<double>(row.good) / 6);
  }
  EXPECT_EQ(attainment(LatencySamples{}, {1.0, std::nullopt, std::nullopt}), 0);
}

}  // namespace
}  // namespace llm
