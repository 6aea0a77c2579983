// Reads a Hugging Face config.json into a ModelConfig for the Llama-family decoders we run:
// LlamaForCausalLM / model_type "llama" and Qwen2ForCausalLM / model_type "qwen2".
// The shape fields (vocab_size, hidden_size, intermediate_size, num_hidden_layers,
// num_attention_heads) are required; the rest default as transformers' LlamaConfig/Qwen2Config do
// (num_key_value_heads = num_attention_heads, head_dim = hidden_size / num_attention_heads,
// rms_norm_eps 1e-6, rope_theta 10000, no tied embeddings; Qwen2 always has QKV bias).
// Unsupported features (another architecture, hidden_act other than silu, sliding-window
// attention, an unknown rope_scaling type) and contradictions are ModelFormatErrors naming the
// file and the field.
// Thread-safety: stateless functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "backends/model/model_config.h"

namespace llm {

ModelConfig parse_hf_config(const nlohmann::json& config, const std::string& file);
// Parses JSON text first (a syntax error is a ModelFormatError).
ModelConfig parse_hf_config_text(std::string_view text, const std::string& file);
ModelConfig load_hf_config(const std::string& path);

}  // namespace llm
