// Rotary position embedding in Hugging Face's rotate-half layout: within a head of head_dim,
// dimension i (< head_dim/2) pairs with i + head_dim/2 and turns by pos * inv_freq[i]. The
// frequencies follow transformers' rope initialisation: base^(-2i/head_dim), divided by the
// config's per-frequency factor (rope_freq_factors_of: Llama 3.1's "llama3" scaling, from
// config.json or a GGUF's rope_freqs.weight alike) and by the factor of "linear" scaling. Angles
// are computed in double and rounded to float once, so a position's rotation never depends on
// the batch.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/model/model_config.h"

namespace llm {

// head_dim / 2 inverse frequencies with the config's scaling applied. Throws
// std::invalid_argument for rope_freq_factors that do not number head_dim / 2.
std::vector<double> rope_inv_freq(const ModelConfig& config);

// cos_out/sin_out[i] = cos/sin(pos * inv_freq[i]) for the head_dim / 2 frequencies.
void rope_angles(const std::vector<double>& inv_freq, int64_t pos, float* cos_out, float* sin_out);

// Rotates one head (head_dim values) in place: x1' = x1 cos - x2 sin, x2' = x2 cos + x1 sin.
void apply_rope(float* x, const float* cos, const float* sin, int64_t head_dim);

}  // namespace llm
