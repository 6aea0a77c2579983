#include "backends/cpu/rope.h"

#include <cmath>

#include "backends/model/rope_factors.h"

namespace llm {

std::vector<double> rope_inv_freq(const ModelConfig& c) {
  const int64_t half = c.head_dim / 2;
  const std::vector<float> factors = rope_freq_factors_of(c);
  const double linear =
      c.rope_scaling.type == RopeScaling::Type::kLinear ? c.rope_scaling.factor : 1.0;
  std::vector<double> inv(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    double f =
        1.0 / std::pow(c.rope_theta, static_cast<double>(2 * i) / static_cast<double>(c.head_dim));
    if (!factors.empty()) f /= static_cast<double>(factors[static_cast<size_t>(i)]);
    inv[static_cast<size_t>(i)] = f / linear;
  }
  return inv;
}

void rope_angles(const std::vector<double>& inv_freq, int64_t pos, float* cos_out, float* sin_out) {
  for (size_t i = 0; i < inv_freq.size(); ++i) {
    const double a = static_cast<double>(pos) * inv_freq[i];
    cos_out[i] = static_cast<float>(std::cos(a));
    sin_out[i] = static_cast<float>(std::sin(a));
  }
}

void apply_rope(float* x, const float* cos, const float* sin, int64_t head_dim) {
  const int64_t half = head_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const float x1 = x[i], x2 = x[i + half];
    x[i] = x1 * cos[i] - x2 * sin[i];
    x[i + half] = x2 * cos[i] + x1 * sin[i];
  }
}

}  // namespace llm
