// Test helpers for the model loaders and writers: tiny configs, an in-memory vocabulary GGUF,
// byte-exact comparison of ModelWeights, and whole-file byte I/O.
// Thread-safety: plain functions; safe from any thread.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/model/model_tensors.h"
#include "backends/model/model_weights.h"

namespace llm::testing {

// llama: untied, grouped-query attention (4 heads, 2 kv heads). qwen2: QKV bias, tied.
inline ModelConfig tiny_config(const std::string& arch, int64_t vocab = 96) {
  ModelConfig c;
  c.architecture = arch;
  c.vocab_size = vocab;
  c.hidden_size = 64;
  c.intermediate_size = 96;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 16;
  c.rms_norm_eps = arch == "qwen2" ? 1e-6 : 1e-5;
  c.rope_theta = arch == "qwen2" ? 1000000.0 : 10000.0;
  c.max_position_embeddings = 512;
  c.tie_word_embeddings = arch == "qwen2";
  c.attention_bias = arch == "qwen2";
  c.bos_token_id = 1;
  c.eos_token_ids = {2};
  c.torch_dtype = "float32";
  return c;
}

// A vocabulary-only GGUF held in memory: n tokens "t0".."t{n-1}", bos 1, eos 2.
inline GgufFile tiny_vocab(int n = 96) {
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_string("tokenizer.ggml.model", "gpt2");
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back("t" + std::to_string(i));
  w.set_string_array("tokenizer.ggml.tokens", tokens);
  w.set_i32_array("tokenizer.ggml.token_type", std::vector<int32_t>(static_cast<size_t>(n), 1));
  w.set_string_array("tokenizer.ggml.merges", {"t 0"});
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
  return GgufFile::parse(w.to_bytes(), "tiny-vocab.gguf");
}

inline void expect_same_config(const ModelConfig& a, const ModelConfig& b) {
  EXPECT_EQ(a.architecture, b.architecture);
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.hidden_size, b.hidden_size);
  EXPECT_EQ(a.intermediate_size, b.intermediate_size);
  EXPECT_EQ(a.num_hidden_layers, b.num_hidden_layers);
  EXPECT_EQ(a.num_attention_heads, b.num_attention_heads);
  EXPECT_EQ(a.num_key_value_heads, b.num_key_value_heads);
  EXPECT_EQ(a.head_dim, b.head_dim);
  EXPECT_EQ(a.rms_norm_eps, b.rms_norm_eps);  // exact: see gguf_model_config.h
  EXPECT_EQ(a.rope_theta, b.rope_theta);
  EXPECT_EQ(a.rope_scaling.type, b.rope_scaling.type);
  EXPECT_EQ(a.rope_scaling.factor, b.rope_scaling.factor);
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings);
  EXPECT_EQ(a.attention_bias, b.attention_bias);
  EXPECT_EQ(a.mlp_bias, b.mlp_bias);
  EXPECT_EQ(a.bos_token_id, b.bos_token_id);
  EXPECT_EQ(a.eos_token_ids, b.eos_token_ids);
  EXPECT_EQ(a.torch_dtype, b.torch_dtype);
}

// Same config and bit-identical tensors (memcmp, so -0.0 vs 0.0 or NaN payloads count).
inline void expect_identical_weights(const ModelWeights& a, const ModelWeights& b) {
  expect_same_config(a.config, b.config);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (const ModelTensor& t : model_tensors(a.config)) {
    const std::vector<float>& x = tensor_data(a, t);
    const std::vector<float>& y = tensor_data(b, t);
    ASSERT_EQ(x.size(), y.size()) << t.hf_name;
    EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0) << t.hf_name;
  }
  EXPECT_EQ(a.lm_head.size(), b.lm_head.size());
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace llm::testing
