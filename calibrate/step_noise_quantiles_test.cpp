// The scatter a calibration keeps: the measured ratios' quantiles at its probabilities, a
// distribution a replay can draw from, and bad ratios refused.
#include "calibrate/step_noise_quantiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace llm {
namespace {

// 1001 ratios evenly spaced over [0.9, 1.9], unsorted on purpose: the quantile at p is 0.9 + p.
std::vector<double> evenly_spaced_ratios() {
  std::vector<double> r;
  for (int i = 1000; i >= 0; --i) r.push_back(0.9 + i / 1000.0);
  return r;
}

TEST(StepNoiseQuantiles, KeepsTheRatiosQuantilesAtItsProbabilities) {
  const StepTimeNoise n = step_noise_from_ratios(evenly_spaced_ratios());
  ASSERT_EQ(n.probabilities, step_noise_probabilities());
  ASSERT_EQ(n.ratios.size(), n.probabilities.size());
  for (size_t i = 0; i < n.ratios.size(); ++i) {
    EXPECT_NEAR(n.ratios[i], 0.9 + n.probabilities[i], 1e-12) << n.probabilities[i];
  }
  EXPECT_EQ(step_noise_problem(n), "");
  // Two ratios: the quantiles interpolate between them.
  const StepTimeNoise two = step_noise_from_ratios({2.0, 1.0});
  EXPECT_NEAR(two.ratios[8], 1.5, 1e-12);  // probability 0.5
}

TEST(StepNoiseQuantiles, TooFewOrNonPositiveRatiosAreRefused) {
  EXPECT_THROW(step_noise_from_ratios({1.0}), std::invalid_argument);
  EXPECT_THROW(step_noise_from_ratios({1.0, -1.0}), std::invalid_argument);
  EXPECT_THROW(step_noise_from_ratios({1.0, INFINITY}), std::invalid_argument);
}

}  // namespace
}  // namespace llm
