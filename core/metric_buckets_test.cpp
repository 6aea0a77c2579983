// The bucket bounds must be vLLM's exactly (/work/shared/spec/metrics-semantics.md, "Buckets"):
// a dashboard or rule written for vLLM selects them by their `le` label.
#include "core/metric_buckets.h"

#include <gtest/gtest.h>

#include <vector>

namespace llm {
namespace {

using Bounds = std::vector<double>;

TEST(MetricBuckets, TimeToFirstTokenHasVllmsTwentyTwoBounds) {
  EXPECT_EQ(ttft_buckets(),
            (Bounds{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
                    1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}));
}

TEST(MetricBuckets, InterTokenLatencyHasVllmsNineteenBounds) {
  EXPECT_EQ(itl_buckets(), (Bounds{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
                                   1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}));
}

TEST(MetricBuckets, RequestLatenciesHaveVllmsTwentyOneBounds) {
  EXPECT_EQ(request_latency_buckets(),
            (Bounds{0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
                    30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}));
}

TEST(MetricBuckets, IterationTokensArePowersOfTwoFromEightAfterOne) {
  EXPECT_EQ(iteration_token_buckets(),
            (Bounds{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}));
}

TEST(MetricBuckets, ParamsNHasFiveBounds) { EXPECT_EQ(n_buckets(), (Bounds{1, 2, 5, 10, 20})); }

TEST(MetricBuckets, OneTwoFiveBoundsStopAtTheLargestNotAboveTheMaximum) {
  EXPECT_EQ(one_two_five_buckets(1000), (Bounds{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}));
  EXPECT_EQ(one_two_five_buckets(999), (Bounds{1, 2, 5, 10, 20, 50, 100, 200, 500}));
  EXPECT_EQ(one_two_five_buckets(131072), (Bounds{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000,
                                                  5000, 10000, 20000, 50000, 100000}));
  EXPECT_EQ(one_two_five_buckets(1), (Bounds{1}));
}

}  // namespace
}  // namespace llm
