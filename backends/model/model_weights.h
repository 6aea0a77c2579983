// ModelWeights: a Llama-family decoder's parameters in fp32, in one fixed layout that every loader
// produces and every backend consumes, whatever the file format and weight type were.
//
// Layout (Hugging Face / PyTorch convention):
// - A linear layer's weight is row-major [out_features][in_features] (y = W x + b), so row o is the
//   weights of output o.
// - Q and K projections are in Hugging Face's rotate-half RoPE layout: within a head of head_dim,
//   dimension i pairs with i + head_dim/2. (GGUF's llama layout interleaves pairs (2i, 2i+1); the
//   GGUF loader undoes that permutation and the GGUF writer applies it.)
// - tok_embeddings is [vocab_size][hidden_size]; lm_head is [vocab_size][hidden_size] and empty
// when
//   config.tie_word_embeddings (then tok_embeddings is used).
// - Biases are empty when the model has none (q/k/v biases: config.attention_bias).
// Sizes: q_proj [heads*head_dim][hidden], k_proj/v_proj [kv_heads*head_dim][hidden],
// o_proj [hidden][heads*head_dim], gate_proj/up_proj [intermediate][hidden],
// down_proj [hidden][intermediate], norms [hidden].
// Thread-safety: plain data; immutable once loaded and safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/model/model_config.h"

namespace llm {

struct LayerWeights {
  std::vector<float> attn_norm;
  std::vector<float> q_proj, k_proj, v_proj, o_proj;
  std::vector<float> q_bias, k_bias, v_bias;
  std::vector<float> ffn_norm;
  std::vector<float> gate_proj, up_proj, down_proj;
};

struct ModelWeights {
  ModelConfig config;
  std::vector<float> tok_embeddings;
  std::vector<LayerWeights> layers;
  std::vector<float> final_norm;
  std::vector<float> lm_head;  // empty when tied

  const std::vector<float>& output_matrix() const {
    return config.tie_word_embeddings ? tok_embeddings : lm_head;
  }
  int64_t num_parameters() const;
};

// Throws ModelFormatError naming the tensor whose size contradicts the config.
void check_weight_shapes(const ModelWeights& weights, const std::string& label);

// What every backend needs of the config's shape: positive sizes, an even head_dim, query heads a
// multiple of the KV heads. Throws std::invalid_argument "LABEL: unsupported model: ...".
void check_attention_shape(const ModelConfig& config, const std::string& label);

// Seeded random weights for tests and `llmsim make-model`: deterministic for (config, seed).
// Linear weights ~ U(-a, a) with a = 1/sqrt(in_features); norms near 1; biases small.
// peaky: multiplies the output head by 8 (tied: the embeddings by 4), so the softmax is sharply
// peaked and temperature-1 sampling is near-greedy. It does not widen the top-1 margin relative to
// the logits' spread (a scale multiplies gap and rounding error alike), so it cannot rule out
// greedy near-ties; at fp32 they were measured at about 1e-5 per token. Token-exact tests here
// rely on kernels that are bit-exact by construction instead.
ModelWeights random_model_weights(const ModelConfig& config, uint64_t seed, bool peaky);

// Loads a model: a .gguf file (general.architecture llama or qwen2; f32/f16/bf16/q8_0 tensors) or a
// directory with config.json and model.safetensors (or model.safetensors.index.json and shards).
// Every weight is converted to fp32 in the layout above. Throws ModelFormatError naming the file
// and the tensor or key (unsupported architecture or type, shape contradicting the config,
// truncated or corrupt file).
ModelWeights load_model_weights(const std::string& path);

}  // namespace llm
