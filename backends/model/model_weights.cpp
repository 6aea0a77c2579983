#include "backends/model/model_weights.h"

#include <cmath>
#include <stdexcept>

#include "backends/model/model_tensors.h"
#include "core/rng.h"

namespace llm {
namespace {

void check_size(const std::vector<float>& w, int64_t expected, const std::string& label,
                const std::string& name) {
  if (static_cast<int64_t>(w.size()) != expected) {
    throw ModelFormatError(label, name,
                           "has " + std::to_string(w.size()) + " values, the config implies " +
                               std::to_string(expected));
  }
}

// Fills `w` with n values ~ U(-bound, bound) + offset from a stream seeded by (seed, tensor tag).
std::vector<float> uniform(uint64_t seed, uint64_t tag, int64_t n, double bound,
                           double offset = 0) {
  Rng rng(hash_combine(seed, tag));
  std::vector<float> w(static_cast<size_t>(n));
  for (float& x : w) x = static_cast<float>(offset + bound * (2.0 * rng.uniform() - 1.0));
  return w;
}

}  // namespace

int64_t ModelWeights::num_parameters() const {
  int64_t n = static_cast<int64_t>(tok_embeddings.size() + final_norm.size() + lm_head.size());
  for (const LayerWeights& l : layers) {
    for (const std::vector<float>* w :
         {&l.attn_norm, &l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.q_bias, &l.k_bias, &l.v_bias,
          &l.ffn_norm, &l.gate_proj, &l.up_proj, &l.down_proj}) {
      n += static_cast<int64_t>(w->size());
    }
  }
  return n;
}

void check_weight_shapes(const ModelWeights& w, const std::string& label) {
  const ModelConfig& c = w.config;
  if (static_cast<int64_t>(w.layers.size()) != c.num_hidden_layers) {
    throw ModelFormatError(label, "layers",
                           std::to_string(w.layers.size()) + " layers, the config says " +
                               std::to_string(c.num_hidden_layers));
  }
  for (const ModelTensor& t : model_tensors(c)) {
    check_size(tensor_data(w, t), t.num_elements(), label, t.hf_name);
  }
  // What the config does not call for must be absent: lm_head when tied, biases without
  // attention_bias.
  check_size(w.lm_head, c.tie_word_embeddings ? 0 : static_cast<int64_t>(w.lm_head.size()), label,
             "lm_head.weight");
  if (!c.attention_bias) {
    for (size_t i = 0; i < w.layers.size(); ++i) {
      const LayerWeights& l = w.layers[i];
      const std::string p = "model.layers." + std::to_string(i) + ".self_attn.";
      check_size(l.q_bias, 0, label, p + "q_proj.bias");
      check_size(l.k_bias, 0, label, p + "k_proj.bias");
      check_size(l.v_bias, 0, label, p + "v_proj.bias");
    }
  }
}

void check_attention_shape(const ModelConfig& c, const std::string& label) {
  auto fail = [&label](const std::string& what) {
    throw std::invalid_argument(label + ": unsupported model: " + what);
  };
  if (c.hidden_size <= 0 || c.num_hidden_layers <= 0 || c.vocab_size <= 0 ||
      c.num_attention_heads <= 0 || c.num_key_value_heads <= 0 || c.intermediate_size <= 0) {
    fail("a shape field is not positive");
  }
  if (c.head_dim <= 0 || c.head_dim % 2 != 0) fail("head_dim must be positive and even");
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    fail("num_attention_heads is not a multiple of num_key_value_heads");
  }
}

ModelWeights random_model_weights(const ModelConfig& config, uint64_t seed, bool peaky) {
  ModelWeights w;
  w.config = config;
  const ModelConfig& c = config;
  const int64_t h = c.hidden_size, q = c.num_attention_heads * c.head_dim,
                kv = c.num_key_value_heads * c.head_dim, f = c.intermediate_size, v = c.vocab_size;
  uint64_t tag = 0;
  const double in_h = 1.0 / std::sqrt(static_cast<double>(h));
  w.tok_embeddings = uniform(seed, ++tag, v * h, 1.0);
  w.layers.resize(static_cast<size_t>(c.num_hidden_layers));
  for (LayerWeights& l : w.layers) {
    l.attn_norm = uniform(seed, ++tag, h, 0.1, 1.0);
    l.q_proj = uniform(seed, ++tag, q * h, in_h);
    l.k_proj = uniform(seed, ++tag, kv * h, in_h);
    l.v_proj = uniform(seed, ++tag, kv * h, in_h);
    l.o_proj = uniform(seed, ++tag, h * q, 1.0 / std::sqrt(static_cast<double>(q)));
    if (c.attention_bias) {
      l.q_bias = uniform(seed, ++tag, q, 0.02);
      l.k_bias = uniform(seed, ++tag, kv, 0.02);
      l.v_bias = uniform(seed, ++tag, kv, 0.02);
    }
    l.ffn_norm = uniform(seed, ++tag, h, 0.1, 1.0);
    l.gate_proj = uniform(seed, ++tag, f * h, in_h);
    l.up_proj = uniform(seed, ++tag, f * h, in_h);
    l.down_proj = uniform(seed, ++tag, h * f, 1.0 / std::sqrt(static_cast<double>(f)));
  }
  w.final_norm = uniform(seed, ++tag, h, 0.1, 1.0);
  // Peaky: a larger output scale spreads the logits so the top two rarely come close.
  const double out_bound = (peaky ? 8.0 : 1.0) * in_h;
  if (c.tie_word_embeddings) {
    if (peaky) {
      for (float& x : w.tok_embeddings) x *= 4.0f;
    }
  } else {
    w.lm_head = uniform(seed, ++tag, v * h, out_bound);
  }
  return w;
}

}  // namespace llm
