// The two halves of load_model_weights (model_weights.h), usable on their own: a parsed GGUF
// file, and a Hugging Face checkpoint directory (config.json + model.safetensors or
// model.safetensors.index.json and its shards). Both convert every weight to fp32 in ModelWeights'
// layout (the GGUF llama Q/K permutation undone), check each tensor's shape against the config and
// throw ModelFormatError naming the file and the tensor or key.
// Tensors the config does not call for are ignored (e.g. rotary_emb.inv_freq, a tied lm_head).
// Thread-safety: stateless functions.
#pragma once

#include <string>

#include "backends/model/model_weights.h"

namespace llm {

class GgufFile;

ModelWeights load_gguf_model_weights(const GgufFile& file);
ModelWeights load_safetensors_model_weights(const std::string& dir);

}  // namespace llm
