// ModelConfig <-> GGUF metadata for the llama and qwen2 architectures, with llama.cpp's key names
// (general.architecture, <arch>.embedding_length, <arch>.attention.head_count_kv, ...). Facts from
// llama.cpp's gguf-py constants and convert_hf_to_gguf.py.
// GGUF stores rms_norm_eps and rope_theta as FLOAT32; reading takes the shortest decimal that
// round-trips the float (1e-5f reads as the double 1e-5), so a config that went through GGUF equals
// the one that went through config.json.
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>

#include "backends/model/model_config.h"

namespace llm {

class GgufFile;
class GgufWriter;

// Builds the config from the file's metadata and tensor list (tied embeddings: no output.weight;
// llama QKV bias: blk.0.attn_q.bias present). Throws ModelFormatError naming the file and the key
// for an unsupported architecture or feature, a missing or contradictory key.
ModelConfig gguf_model_config(const GgufFile& file);

// llama.cpp's general.file_type codes.
enum class GgufFileType : uint32_t {
  kAllF32 = 0,
  kMostlyF16 = 1,
  kMostlyQ8_0 = 7,
  kMostlyBF16 = 32
};

// Writes general.architecture, general.file_type and the <arch>.* hyper-parameters (not the
// tokenizer). Throws std::invalid_argument for a config GGUF cannot express here (llama3 RoPE
// scaling, MLP biases, another architecture).
void set_gguf_model_config(const ModelConfig& config, GgufFileType file_type, GgufWriter& writer);

// The shortest-decimal double of a float (see above).
double float_to_shortest_double(float f);

}  // namespace llm
