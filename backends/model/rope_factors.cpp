#include "backends/model/rope_factors.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace llm {

std::vector<float> llama3_rope_freq_factors(int64_t head_dim, double rope_theta,
                                            const RopeScaling& s) {
  if (head_dim <= 0 || head_dim % 2 != 0) {
    throw std::invalid_argument("llama3 RoPE factors: head_dim must be positive and even, got " +
                                std::to_string(head_dim));
  }
  if (!(rope_theta > 0) || !(s.factor > 0) || !(s.low_freq_factor > 0)) {
    throw std::invalid_argument(
        "llama3 RoPE factors: rope_theta, factor and low_freq_factor must be positive");
  }
  if (!(s.high_freq_factor > s.low_freq_factor)) {
    throw std::invalid_argument(
        "llama3 RoPE factors: high_freq_factor must exceed low_freq_factor");
  }
  if (s.original_max_position_embeddings <= 0) {
    throw std::invalid_argument(
        "llama3 RoPE factors: original_max_position_embeddings must be positive");
  }
  const double original = static_cast<double>(s.original_max_position_embeddings);
  const double low_wavelen = original / s.low_freq_factor;
  const double high_wavelen = original / s.high_freq_factor;
  std::vector<float> out(static_cast<size_t>(head_dim / 2));
  for (int64_t i = 0; i < head_dim / 2; ++i) {
    const double inv_freq =
        1.0 / std::pow(rope_theta, static_cast<double>(2 * i) / static_cast<double>(head_dim));
    const double wavelen = 2.0 * std::numbers::pi / inv_freq;
    double f = 1.0;
    if (wavelen > low_wavelen) {
      f = s.factor;
    } else if (wavelen >= high_wavelen) {
      const double smooth =
          (original / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      f = 1.0 / ((1.0 - smooth) / s.factor + smooth);
    }
    out[static_cast<size_t>(i)] = static_cast<float>(f);
  }
  return out;
}

std::vector<float> rope_freq_factors_of(const ModelConfig& c) {
  if (!c.rope_freq_factors.empty()) {
    try {
      check_rope_freq_factors(c.rope_freq_factors, c.head_dim, "model config", "rope_freq_factors");
    } catch (const ModelFormatError& e) {
      throw std::invalid_argument(e.what());
    }
    return c.rope_freq_factors;
  }
  if (c.rope_scaling.type == RopeScaling::Type::kLlama3) {
    return llama3_rope_freq_factors(c.head_dim, c.rope_theta, c.rope_scaling);
  }
  return {};
}

void check_rope_freq_factors(const std::vector<float>& factors, int64_t head_dim,
                             const std::string& file, const std::string& field) {
  if (static_cast<int64_t>(factors.size()) != head_dim / 2) {
    throw ModelFormatError(file, field,
                           std::to_string(factors.size()) + " factors, but head dimension " +
                               std::to_string(head_dim) + " needs " + std::to_string(head_dim / 2) +
                               " (one per rotary frequency)");
  }
  for (size_t i = 0; i < factors.size(); ++i) {
    if (!(factors[i] > 0) || !std::isfinite(factors[i])) {
      throw ModelFormatError(file, field,
                             "factor " + std::to_string(i) + " is " + std::to_string(factors[i]) +
                                 " (must be finite and positive)");
    }
  }
}

}  // namespace llm
