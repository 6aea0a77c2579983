// A model shape from a Hugging Face config.json (the file, or a folder holding one), as vLLM
// would load that checkpoint: dense and mixture-of-experts decoders of the Llama family (Llama
// 2/3/4, Mistral, Mixtral, Qwen2/2.5, Qwen2-MoE, Qwen3, Qwen3-MoE), grouped-query attention, an
// explicit head_dim, tied embeddings, the weights' dtype and FP8 checkpoints
// (quantization_config). What it cannot model (multi-head latent attention, sliding windows,
// other quantizations, unknown architectures) is refused naming the field.
// Thread-safety: pure functions; the loader only reads its file.
#pragma once

#include <string>

#include "backends/sim/model_shape.h"

namespace llm {

// How the weights are stored, as vLLM's --dtype and --quantization say.
struct WeightFormat {
  std::string dtype = "auto";  // auto | bfloat16 | float16 | half | float32 | float
  std::string quantization;    // "" (as the checkpoint) | fp8
};

// True when `path` names a folder holding config.json, or a .json file whose object looks like a
// Hugging Face config (it has "architectures", "model_type" or "hidden_size").
bool is_hf_model_config(const std::string& path);

// Reads the config. Throws std::invalid_argument "FILE: field 'KEY': what" for a missing or
// malformed field and for a model it cannot price.
ModelShape load_hf_model_config(const std::string& path);

// Applies --dtype and --quantization to any shape (preset, JSON or config.json): a 16-bit dtype
// keeps 2 bytes per weight, float32 makes 4; fp8 makes the attention and MLP matrices 1 byte
// (vLLM keeps the embeddings and LM head in 16 bits). Throws std::invalid_argument naming the
// flag's value when it is not one of those.
void apply_weight_format(ModelShape& m, const WeightFormat& format);

}  // namespace llm
