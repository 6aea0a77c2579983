// The deterministic choice of the failing requests: a function of (seed, request index) alone,
// near the configured rate, among the configured types only.
#include "server/faults/failure_draw.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

namespace llm {
namespace {

std::vector<int> failing(uint64_t seed, double rate, int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    if (draw_failure(seed, i, rate, {})) out.push_back(i);
  }
  return out;
}

TEST(FailureDraw, TheSameSeedGivesTheSameFailures) {
  EXPECT_EQ(failing(7, 0.3, 200), failing(7, 0.3, 200));
  EXPECT_NE(failing(7, 0.3, 200), failing(8, 0.3, 200));
}

TEST(FailureDraw, RatesAtTheEnds) {
  const struct {
    double rate;
    size_t failures;
  } table[] = {{0, 0}, {1, 1000}};
  for (const auto& row : table) EXPECT_EQ(failing(1, row.rate, 1000).size(), row.failures);
}

TEST(FailureDraw, TheShareIsNearTheRate) {
  for (double rate : {0.05, 0.25, 0.5}) {
    const double share = static_cast<double>(failing(42, rate, 4000).size()) / 4000;
    EXPECT_NEAR(share, rate, 0.03) << rate;
  }
}

TEST(FailureDraw, EveryConfiguredTypeAndNoOther) {
  const std::vector<FailureType> two{FailureType::kRateLimit, FailureType::kModelNotFound};
  std::map<FailureType, int> seen;
  for (uint64_t i = 0; i < 400; ++i) {
    if (auto t = draw_failure(3, i, 1.0, two)) ++seen[*t];
  }
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_GT(seen[FailureType::kRateLimit], 100);
  EXPECT_GT(seen[FailureType::kModelNotFound], 100);
}

RC_GTEST_PROP(FailureDraw, AHigherRateFailsASuperset, (uint64_t seed, uint64_t n)) {
  const double low = *rc::gen::inRange(0, 100) / 100.0;
  const double high = std::min(1.0, low + *rc::gen::inRange(0, 100) / 100.0);
  if (draw_failure(seed, n, low, {})) RC_ASSERT(draw_failure(seed, n, high, {}).has_value());
}

}  // namespace
}  // namespace llm
