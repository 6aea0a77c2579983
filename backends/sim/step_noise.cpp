#include "backends/sim/step_noise.h"

#include <algorithm>
#include <cmath>

#include "core/rng.h"

namespace llm {

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
