// Writes a ModelWeights as a Hugging Face checkpoint directory (config.json + model.safetensors)
// or as a single GGUF file (llama.cpp's tensor names and metadata keys, the tokenizer copied from
// a vocabulary GGUF). load_model_weights reads both back. Used by `llmsim make-model` and tests.
// Thread-safety: stateless functions; the weights are only read.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/model/model_weights.h"

namespace llm {

class GgufFile;

// Storage type of the weight matrices. kQ8_0 is GGUF only (and lossy beyond the q8 grid).
enum class WeightType { kF32, kF16, kBF16, kQ8_0 };

// "f32", "f16", "bf16", "q8_0"; nullopt otherwise.
std::optional<WeightType> parse_weight_type(std::string_view name);
const char* weight_type_name(WeightType type);

// Rounds every weight to the nearest value `type` can hold (f16/bf16; no-op for f32 and q8_0),
// so that files of that type in either format hold exactly these weights.
void round_weights_to(ModelWeights& weights, WeightType type);

// Writes dir/model.safetensors (HF tensor names, every tensor in `type`, metadata format=pt) and
// dir/config.json (torch_dtype from `type`), and returns their paths. Creates dir. Throws
// std::invalid_argument for kQ8_0, weights that contradict their config or RoPE factors
// config.json cannot state (see hf_config_to_json), std::runtime_error on I/O failure.
std::vector<std::string> write_safetensors_model(const ModelWeights& weights,
                                                 const std::string& dir,
                                                 WeightType type = WeightType::kF32);

// Writes a GGUF v3 file: general.architecture and <arch>.* hyper-parameters, every tokenizer.* key
// of vocab_source (bos/eos ids then set from the config), and the tensors under llama.cpp's names
// with ne[0] = in_features. Matrices are stored in `type` (a Q8_0 matrix whose rows are not a
// multiple of 32 stays F32); 1-D tensors (norms, biases) are F32, as llama.cpp stores them. For
// arch llama, Q/K rows are permuted to GGUF's interleaved RoPE layout. Per-frequency RoPE
// factors (rope_freq_factors_of: llama3 scaling) go first, as llama.cpp's F32 rope_freqs.weight.
// chat_template, when given, replaces the vocabulary's tokenizer.chat_template ("" = none).
// Throws std::invalid_argument when the vocabulary's size differs from config.vocab_size or the
// config cannot be expressed, std::runtime_error on I/O failure.
void write_gguf_model(const ModelWeights& weights, const GgufFile& vocab_source,
                      const std::string& path, WeightType type = WeightType::kF32,
                      const std::optional<std::string>& chat_template = std::nullopt);

}  // namespace llm
