// ModelConfig: the shape and hyper-parameters of a Llama-family decoder (Llama 2/3, Qwen2), filled
// from a Hugging Face config.json (hf_config.h) or from GGUF metadata. ModelFormatError, the error
// of every model-file reader, lives with the readers (backends/formats/model_format_error.h).
// Thread-safety: plain data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/formats/model_format_error.h"

namespace llm {

// The largest dimension a model file may declare: keeps products of dimensions far from overflow.
inline constexpr int64_t kMaxModelDim = int64_t{1} << 31;

// RoPE frequency scaling. kNone: plain RoPE with rope_theta. kLinear: positions divided by factor.
// kLlama3: Llama 3.1's per-frequency scaling (factor, low/high_freq_factor, original context), as
// config.json states it; backends apply it only through ModelConfig::rope_freq_factors
// (rope_factors.h turns these parameters into those factors).
struct RopeScaling {
  enum class Type { kNone, kLinear, kLlama3 };
  Type type = Type::kNone;
  double factor = 1.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_max_position_embeddings = 0;
};

struct ModelConfig {
  std::string architecture;  // "llama" or "qwen2"
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;  // == num_attention_heads without grouped-query attention
  int64_t head_dim = 0;             // often hidden_size / num_attention_heads, but not always
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;
  // Per-frequency RoPE divisors: inv_freq[i] = rope_theta^(-2i/head_dim) / rope_freq_factors[i]
  // (then / rope_scaling.factor for kLinear). Empty: none, or (kLlama3) not yet derived; else
  // head_dim / 2 finite positive values. parse_hf_config fills them for kLlama3; a GGUF fills them
  // from its rope_freqs.weight tensor and, as GGUF records no llama3 parameters, keeps
  // rope_scaling kNone (or kLinear). Use rope_freq_factors_of() (rope_factors.h) to read them.
  std::vector<float> rope_freq_factors;
  int64_t max_position_embeddings = 0;
  bool tie_word_embeddings = false;  // lm_head shares the token embedding matrix
  bool attention_bias = false;       // q/k/v projections have biases (always true for Qwen2)
  bool mlp_bias = false;             // gate/up/down projections have biases
  int32_t bos_token_id = -1;         // -1: none
  std::vector<int32_t> eos_token_ids;
  std::string torch_dtype;  // "bfloat16", "float16", "float32" or "" when unspecified
};

}  // namespace llm
