#include "calibrate/step_noise_quantiles.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/sample_stats.h"

namespace llm {

const std::vector<double>& step_noise_probabilities() {
  static const std::vector<double> kProbabilities = {0.001, 0.01, 0.025, 0.05, 0.1,  0.2,   0.3,
                                                     0.4,   0.5,  0.6,   0.7,  0.8,  0.85,  0.9,
                                                     0.93,  0.95, 0.97,  0.98, 0.99, 0.995, 0.999};
  return kProbabilities;
}

StepTimeNoise step_noise_from_ratios(std::vector<double> ratios) {
  if (ratios.size() < 2) {
    throw std::invalid_argument("step time noise: needs at least 2 measured steps, got " +
                                std::to_string(ratios.size()));
  }
  for (double r : ratios) {
    if (!std::isfinite(r) || r <= 0) {
      throw std::invalid_argument("step time noise: a measured / modelled ratio of " +
                                  std::to_string(r) + "; each must be a positive number");
    }
  }
  std::sort(ratios.begin(), ratios.end());
  StepTimeNoise noise;
  noise.probabilities = step_noise_probabilities();
  for (double p : noise.probabilities) noise.ratios.push_back(sorted_quantile(ratios, p));
  return noise;
}

}  // namespace llm
