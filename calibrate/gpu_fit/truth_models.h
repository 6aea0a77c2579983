// The model shapes behind the published profiles and runs of ../shared/gpu-truth: a Hugging Face
// model name ("meta-llama/Llama-2-7b-hf") resolves to its config.json in blis/model-configs/
// (the folder named as the repository, lower-cased, or a listed alias). Qwen3-32B, profiled by
// LLMServingSim but without a config there, is the one shape written here (its config's facts).
// Thread-safety: pure functions; reads the config files.
#pragma once

#include <string>

#include "backends/sim/model_shape.h"

namespace llm {

// "Llama-2-7b-hf" of "meta-llama/Llama-2-7b-hf".
std::string model_short_name(const std::string& hf_name);

// Throws std::invalid_argument naming the model when there is no config for it.
ModelShape truth_model(const std::string& truth_root, const std::string& hf_name);

}  // namespace llm
