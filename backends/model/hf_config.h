// Reads a Hugging Face config.json into a ModelConfig for the Llama-family decoders we run:
// LlamaForCausalLM / model_type "llama" and Qwen2ForCausalLM / model_type "qwen2".
// The shape fields (vocab_size, hidden_size, intermediate_size, num_hidden_layers,
// num_attention_heads) are required; the rest default as transformers' LlamaConfig/Qwen2Config do
// (num_key_value_heads = num_attention_heads, head_dim = hidden_size / num_attention_heads,
// rms_norm_eps 1e-6, rope_theta 10000, no tied embeddings; Qwen2 always has QKV bias).
// Unsupported features (another architecture, hidden_act other than silu, sliding-window
// attention, an unknown rope_scaling type) and contradictions are ModelFormatErrors naming the
// file and the field.
// rope_scaling "llama3" also fills rope_freq_factors (rope_factors.h).
// hf_config_to_json is the inverse, for the tiny-model generator.
// Thread-safety: stateless functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "backends/model/model_config.h"

namespace llm {

ModelConfig parse_hf_config(const nlohmann::json& config, const std::string& file);
// Parses JSON text first (a syntax error is a ModelFormatError).
ModelConfig parse_hf_config_text(std::string_view text, const std::string& file);
ModelConfig load_hf_config(const std::string& path);

// The config.json transformers would write for `config` (architectures, model_type, every shape
// field, rms_norm_eps, rope_theta, rope_scaling, tie_word_embeddings, bos/eos ids, torch_dtype);
// parse_hf_config reads it back to an equal ModelConfig (with rope_freq_factors derived for
// llama3). Throws std::invalid_argument for rope_freq_factors that are not llama3 rope_scaling's
// (e.g. a GGUF's rope_freqs.weight, whose parameters GGUF does not record).
nlohmann::json hf_config_to_json(const ModelConfig& config);

}  // namespace llm
