// The step-time scatter a profile keeps: a draw follows the kept distribution and is the same for
// the same seed and step, and a distribution that cannot be drawn from is named (its construction
// from measured ratios is tested in calibrate/step_noise_quantiles_test.cpp).
#include "backends/sim/step_noise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace llm {
namespace {

TEST(StepTimeNoise, DrawsInterpolateBetweenTheKeptPointsAndStopAtTheTails) {
  const StepTimeNoise n{{0.1, 0.5, 0.9}, {0.8, 1.0, 1.4}};
  const struct {
    double u, ratio;
  } cases[] = {{0.0, 0.8}, {0.05, 0.8}, {0.1, 0.8}, {0.3, 0.9},
               {0.5, 1.0}, {0.7, 1.2},  {0.9, 1.4}, {0.999, 1.4}};
  for (const auto& c : cases) EXPECT_NEAR(step_noise_ratio(n, c.u), c.ratio, 1e-12) << c.u;
  // Mean: the flat tails (0.1 x 0.8, 0.1 x 1.4) and the two trapezoids (0.4 x 0.9, 0.4 x 1.2).
  EXPECT_NEAR(step_noise_mean(n), 0.08 + 0.14 + 0.36 + 0.48, 1e-12);
}

TEST(StepTimeNoise, DrawsAreDeterministicAndFollowTheDistribution) {
  // Uniform over [0.901, 1.899] between probabilities 0.001 and 0.999: the ratio at p is 0.9 + p.
  const StepTimeNoise n{{0.001, 0.5, 0.9, 0.999}, {0.901, 1.4, 1.8, 1.899}};
  std::vector<double> draws;
  for (uint64_t i = 0; i < 20000; ++i) {
    const double r = step_noise_draw(n, 7, i);
    ASSERT_EQ(r, step_noise_draw(n, 7, i));
    ASSERT_GE(r, n.ratios.front());
    ASSERT_LE(r, n.ratios.back());
    draws.push_back(r);
  }
  double sum = 0;
  for (double r : draws) sum += r;
  EXPECT_NEAR(sum / draws.size(), step_noise_mean(n), 0.01);
  std::sort(draws.begin(), draws.end());
  EXPECT_NEAR(draws[draws.size() / 2], 1.4, 0.01);
  EXPECT_NEAR(draws[draws.size() * 9 / 10], 1.8, 0.01);
  // Another seed draws another sequence.
  int same = 0;
  for (uint64_t i = 0; i < 100; ++i) same += step_noise_draw(n, 7, i) == step_noise_draw(n, 8, i);
  EXPECT_LT(same, 5);
}

TEST(StepTimeNoise, ADistributionThatCannotBeDrawnFromIsNamed) {
  const struct {
    StepTimeNoise noise;
    std::string problem;
  } cases[] = {
      {{{0.5}, {1.0}}, "probabilities: needs at least 2"},
      {{{0.1, 0.9}, {1.0}}, "ratios: 1 of them for 2 probabilities"},
      {{{0.0, 0.9}, {1.0, 1.1}}, "probabilities: each must be in (0, 1)"},
      {{{0.5, 0.5}, {1.0, 1.1}}, "probabilities: must increase"},
      {{{0.1, 0.9}, {0.0, 1.1}}, "ratios: each must be a positive number"},
      {{{0.1, 0.9}, {1.0, NAN}}, "ratios: each must be a positive number"},
      {{{0.1, 0.9}, {1.2, 1.1}}, "ratios: must not decrease"},
      {{{0.1, 0.9}, {0.9, 1.1}}, ""},
  };
  for (const auto& c : cases) EXPECT_EQ(step_noise_problem(c.noise), c.problem);
}

}  // namespace
}  // namespace llm
