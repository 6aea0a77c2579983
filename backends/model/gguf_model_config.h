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
// llama QKV bias: blk.0.attn_q.bias present; Llama 3.1 RoPE scaling: the F32 tensor
// rope_freqs.weight, read into rope_freq_factors while rope_scaling stays kNone, since GGUF keeps
// no llama3 parameters). Throws ModelFormatError naming the file and the key or tensor for an
// unsupported architecture or feature, a missing or contradictory key, or a rope_freqs.weight
// that is not head_dim / 2 finite positive F32 values.
ModelConfig gguf_model_config(const GgufFile& file);

// llama.cpp's general.file_type codes.
enum class GgufFileType : uint32_t {
  kAllF32 = 0,
  kMostlyF16 = 1,
  kMostlyQ8_0 = 7,
  kMostlyBF16 = 32
};

// Writes general.architecture, general.file_type and the <arch>.* hyper-parameters (not the
// tokenizer, nor rope_freqs.weight, a tensor: write_gguf_model adds it). Llama 3.1 RoPE scaling
// adds no metadata, as in llama.cpp's converter. Throws std::invalid_argument for a config GGUF
// cannot express here (MLP biases, another architecture).
void set_gguf_model_config(const ModelConfig& config, GgufFileType file_type, GgufWriter& writer);

// The shortest-decimal double of a float (see above).
double float_to_shortest_double(float f);

}  // namespace llm
