// Per-frequency RoPE factors: the one place where Llama 3.1's "llama3" rope_scaling becomes
// numbers. A factor divides one rotary frequency: inv_freq[i] = rope_theta^(-2i/head_dim) /
// factor[i], which is how llama.cpp applies the F32 tensor rope_freqs.weight its converter writes
// for such models (ggml's rope: theta / freq_factors[i]). Hugging Face's llama3 formula, with
// wavelen = 2*pi / (rope_theta^(-2i/head_dim)), low_wavelen = original / low_freq_factor and
// high_wavelen = original / high_freq_factor:
//   wavelen < high_wavelen: 1 (high frequencies are kept);
//   wavelen > low_wavelen:  factor (low frequencies are slowed down by the full factor);
//   otherwise:              1 / ((1 - s) / factor + s), s = (original / wavelen - low_freq_factor)
//                           / (high_freq_factor - low_freq_factor) (a smooth blend).
// We evaluate it in double and round each factor once to float32, the type GGUF stores them in,
// so a config.json model and its GGUF copy written here carry bit-identical factors. (llama.cpp's
// converter evaluates the same formula in float32 torch arithmetic, so its files can differ from
// these in the last bits of the smoothed factors: a relative 2e-7 for Llama 3.1.)
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/model/model_config.h"

namespace llm {

// head_dim / 2 factors for llama3 scaling `s` (its type is not consulted). Throws
// std::invalid_argument for an odd or non-positive head_dim, non-positive rope_theta or
// factors, high_freq_factor <= low_freq_factor, or original_max_position_embeddings <= 0.
std::vector<float> llama3_rope_freq_factors(int64_t head_dim, double rope_theta,
                                            const RopeScaling& s);

// The factors a config's RoPE uses: config.rope_freq_factors when set, else llama3's when
// rope_scaling is kLlama3, else none (empty). Throws std::invalid_argument when set factors do not
// number head_dim / 2 or are not finite and positive.
std::vector<float> rope_freq_factors_of(const ModelConfig& config);

// Checks that `factors` (read from `file`, under `field`) are head_dim / 2 finite positive numbers;
// throws ModelFormatError(file, field, ...) otherwise.
void check_rope_freq_factors(const std::vector<float>& factors, int64_t head_dim,
                             const std::string& file, const std::string& field);

}  // namespace llm
