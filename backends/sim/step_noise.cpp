#include "backends/sim/step_noise.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/rng.h"

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
  const double last = static_cast<double>(ratios.size() - 1);
  for (double p : noise.probabilities) {
    const double at = p * last;
    const size_t lo = static_cast<size_t>(at);
    const size_t hi = std::min(lo + 1, ratios.size() - 1);
    noise.ratios.push_back(ratios[lo] + (ratios[hi] - ratios[lo]) * (at - static_cast<double>(lo)));
  }
  return noise;
}

double step_noise_ratio(const StepTimeNoise& noise, double u) {
  const std::vector<double>& p = noise.probabilities;
  const std::vector<double>& r = noise.ratios;
  if (u <= p.front()) return r.front();
  if (u >= p.back()) return r.back();
  const size_t hi = static_cast<size_t>(std::upper_bound(p.begin(), p.end(), u) - p.begin());
  const size_t lo = hi - 1;
  return r[lo] + (r[hi] - r[lo]) * (u - p[lo]) / (p[hi] - p[lo]);
}

double step_noise_mean(const StepTimeNoise& noise) {
  const std::vector<double>& p = noise.probabilities;
  const std::vector<double>& r = noise.ratios;
  double mean = r.front() * p.front() + r.back() * (1 - p.back());  // the flat tails
  for (size_t i = 1; i < p.size(); ++i) mean += (r[i - 1] + r[i]) / 2 * (p[i] - p[i - 1]);
  return mean;
}

std::string step_noise_problem(const StepTimeNoise& noise) {
  const std::vector<double>& p = noise.probabilities;
  const std::vector<double>& r = noise.ratios;
  if (p.size() < 2) return "probabilities: needs at least 2";
  if (r.size() != p.size()) {
    return "ratios: " + std::to_string(r.size()) + " of them for " + std::to_string(p.size()) +
           " probabilities";
  }
  for (size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] > 0 && p[i] < 1)) return "probabilities: each must be in (0, 1)";
    if (i > 0 && !(p[i] > p[i - 1])) return "probabilities: must increase";
    if (!std::isfinite(r[i]) || !(r[i] > 0)) return "ratios: each must be a positive number";
    if (i > 0 && r[i] < r[i - 1]) return "ratios: must not decrease";
  }
  return "";
}

double step_noise_draw(const StepTimeNoise& noise, uint64_t seed, uint64_t index) {
  const uint64_t h = hash_combine(hash_combine(seed, 0x7374657020ULL), index);
  return step_noise_ratio(noise, static_cast<double>(h >> 11) * 0x1.0p-53);
}

}  // namespace llm
