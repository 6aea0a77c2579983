// The model writers and loaders round-trip: the same random weights written as GGUF and as a
// safetensors checkpoint load back bit-identical (to each other and to the original), for llama
// (untied, GQA), qwen2 (bias, tied), a head_dim other than hidden/heads, and f16/bf16 storage;
// GGUF stores llama's Q/K in the interleaved layout and qwen2's unpermuted; Llama 3.1 RoPE scaling
// travels as GGUF's rope_freqs.weight and as config.json's parameters, to identical factors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "backends/formats/float_convert.h"
#include "backends/formats/gguf_reader.h"
#include "backends/formats/safetensors_reader.h"
#include "backends/formats/safetensors_writer.h"
#include "backends/model/hf_config.h"
#include "backends/model/model_loader.h"
#include "backends/model/model_writer.h"
#include "backends/model/rope_factors.h"
#include "backends/model/testing/model_test_support.h"
#include "backends/testing/shared_testdata.h"

namespace llm {
namespace {

using testing::expect_identical_weights;
using testing::scratch_dir;
using testing::tiny_config;
using testing::tiny_vocab;

// Writes `w` both ways into a scratch folder; returns the folder.
std::string write_both(const ModelWeights& w, const std::string& name, WeightType type) {
  const std::string dir = scratch_dir(name);
  write_gguf_model(w, tiny_vocab(static_cast<int>(w.config.vocab_size)), dir + "/model.gguf", type);
  write_safetensors_model(w, dir, type);
  return dir;
}

void expect_round_trip(const ModelConfig& config, const std::string& name, WeightType type) {
  ModelWeights w = random_model_weights(config, 7, false);
  round_weights_to(w, type);
  if (type == WeightType::kF16) w.config.torch_dtype = "float16";
  if (type == WeightType::kBF16) w.config.torch_dtype = "bfloat16";
  const std::string dir = write_both(w, name, type);
  const ModelWeights from_gguf = load_model_weights(dir + "/model.gguf");
  const ModelWeights from_st = load_model_weights(dir);
  SCOPED_TRACE(name);
  expect_identical_weights(from_gguf, from_st);
  expect_identical_weights(w, from_gguf);
  std::filesystem::remove_all(dir);
}

TEST(ModelIo, LlamaUntiedGqaRoundTripsBitExactly) {
  expect_round_trip(tiny_config("llama"), "llama_f32", WeightType::kF32);
}

TEST(ModelIo, Qwen2TiedWithBiasRoundTripsBitExactly) {
  expect_round_trip(tiny_config("qwen2"), "qwen2_f32", WeightType::kF32);
}

TEST(ModelIo, F16AndBf16RoundTripBitExactlyBothWays) {
  expect_round_trip(tiny_config("llama"), "llama_f16", WeightType::kF16);
  expect_round_trip(tiny_config("qwen2"), "qwen2_f16", WeightType::kF16);
  expect_round_trip(tiny_config("llama"), "llama_bf16", WeightType::kBF16);
}

TEST(ModelIo, HeadDimOtherThanHiddenOverHeadsAndLlamaBias) {
  ModelConfig c = tiny_config("llama");
  c.head_dim = 24;  // 4 * 24 = 96 != 64: GGUF needs attention.key_length
  c.attention_bias = true;
  c.eos_token_ids = {2, 5};  // GGUF: eos + eot
  c.rope_scaling.type = RopeScaling::Type::kLinear;
  c.rope_scaling.factor = 2.0;
  expect_round_trip(c, "llama_headdim", WeightType::kF32);
}

TEST(ModelIo, LlamaGgufStoresQkInterleavedQwen2DoesNot) {
  for (const std::string arch : {"llama", "qwen2"}) {
    const ModelWeights w = random_model_weights(tiny_config(arch), 3, false);
    const std::string dir = write_both(w, "layout_" + arch, WeightType::kF32);
    const GgufFile f = GgufFile::open(dir + "/model.gguf");
    const int64_t h = w.config.hidden_size, hd = w.config.head_dim;
    for (const char* name : {"blk.1.attn_q.weight", "blk.1.attn_k.weight"}) {
      const GgufTensorInfo* t = f.find_tensor(name);
      ASSERT_NE(t, nullptr) << name;
      EXPECT_EQ(t->dims[0], static_cast<uint64_t>(h)) << "ne[0] is in_features";
      const bool is_q = std::string(name).find("attn_q") != std::string::npos;
      const std::vector<float>& hf = is_q ? w.layers[1].q_proj : w.layers[1].k_proj;
      const float* raw = reinterpret_cast<const float*>(t->data);
      // Stored row 1 of head 1: llama interleaves (row 1 = rotate-half row hd/2); qwen2 keeps it.
      const int64_t stored_row = hd + 1;
      const int64_t hf_row = arch == "llama" ? hd + hd / 2 : hd + 1;
      EXPECT_EQ(std::memcmp(raw + stored_row * h, hf.data() + hf_row * h, h * sizeof(float)), 0)
          << arch << " " << name;
      // Stored row 2 = rotate-half row 1 for llama.
      const int64_t hf_row2 = arch == "llama" ? 1 : 2;
      EXPECT_EQ(std::memcmp(raw + 2 * h, hf.data() + hf_row2 * h, h * sizeof(float)), 0)
          << arch << " " << name;
    }
    if (arch == "qwen2") {
      EXPECT_EQ(f.find_tensor("output.weight"), nullptr) << "tied: no output tensor";
      const GgufTensorInfo* b = f.find_tensor("blk.0.attn_k.bias");
      ASSERT_NE(b, nullptr);
      EXPECT_EQ(b->type, GgmlType::kF32);
    }
    std::filesystem::remove_all(dir);
  }
}

TEST(ModelIo, GgufMetadataUsesLlamaCppKeysAndCopiesTheTokenizer) {
  ModelConfig c = tiny_config("qwen2");
  const ModelWeights w = random_model_weights(c, 1, false);
  const std::string dir = write_both(w, "meta", WeightType::kF16);
  const GgufFile f = GgufFile::open(dir + "/model.gguf");
  EXPECT_EQ(f.get_string("general.architecture"), "qwen2");
  EXPECT_EQ(f.get_u32("qwen2.embedding_length"), 64u);
  EXPECT_EQ(f.get_u32("qwen2.block_count"), 2u);
  EXPECT_EQ(f.get_u32("qwen2.feed_forward_length"), 96u);
  EXPECT_EQ(f.get_u32("qwen2.attention.head_count"), 4u);
  EXPECT_EQ(f.get_u32("qwen2.attention.head_count_kv"), 2u);
  EXPECT_EQ(f.get_u32("qwen2.context_length"), 512u);
  EXPECT_EQ(f.get_f32("qwen2.rope.freq_base"), 1e6f);
  EXPECT_EQ(f.get_f32("qwen2.attention.layer_norm_rms_epsilon"), 1e-6f);
  EXPECT_FALSE(f.has("qwen2.attention.key_length"));  // head_dim == hidden / heads
  EXPECT_EQ(f.get_u32("general.file_type"), 1u);
  EXPECT_EQ(f.get_string_array("tokenizer.ggml.tokens"),
            tiny_vocab().get_string_array("tokenizer.ggml.tokens"));
  EXPECT_EQ(f.get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(f.find_tensor("blk.0.ffn_down.weight")->type, GgmlType::kF16);
  EXPECT_EQ(f.find_tensor("blk.0.ffn_norm.weight")->type, GgmlType::kF32);
  const std::vector<uint64_t> down_dims = {96, 64};
  EXPECT_EQ(f.find_tensor("blk.0.ffn_down.weight")->dims, down_dims);

  const SafetensorsFile st = SafetensorsFile::open(dir + "/model.safetensors");
  EXPECT_EQ(st.at("model.layers.0.mlp.down_proj.weight").dtype, SafetensorsDType::kF16);
  const std::vector<int64_t> down_shape = {64, 96};
  EXPECT_EQ(st.at("model.layers.0.mlp.down_proj.weight").shape, down_shape);
  EXPECT_EQ(st.find("lm_head.weight"), nullptr);
  EXPECT_EQ(st.metadata().at("format"), "pt");
  const ModelConfig back = load_hf_config(dir + "/config.json");
  EXPECT_EQ(back.torch_dtype, "float16");
  EXPECT_TRUE(back.tie_word_embeddings);
  std::filesystem::remove_all(dir);
}

TEST(ModelIo, Q8_0GgufLoadsCloseToTheOriginal) {
  const ModelWeights w = random_model_weights(tiny_config("llama"), 5, false);
  const std::string dir = scratch_dir("q8");
  write_gguf_model(w, tiny_vocab(), dir + "/model.gguf", WeightType::kQ8_0);
  const GgufFile f = GgufFile::open(dir + "/model.gguf");
  EXPECT_EQ(f.find_tensor("blk.0.attn_q.weight")->type, GgmlType::kQ8_0);
  EXPECT_EQ(f.get_u32("general.file_type"), 7u);
  EXPECT_EQ(f.get_u32("general.quantization_version"), 2u);
  const ModelWeights q = load_gguf_model_weights(f);
  for (const ModelTensor& t : model_tensors(w.config)) {
    const std::vector<float>& a = tensor_data(w, t);
    const std::vector<float>& b = tensor_data(q, t);
    ASSERT_EQ(a.size(), b.size());
    float amax = 0;
    for (float x : a) amax = std::max(amax, std::fabs(x));
    for (size_t i = 0; i < a.size(); ++i) {
      // Per element within half a quantization step of its block (plus the f16 scale error).
      ASSERT_NEAR(a[i], b[i], amax / 127.0f * 0.51f + amax * 1e-3f)
          << t.gguf_name << "[" << i << "]";
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(ModelIo, ShardedSafetensorsCheckpointLoads) {
  const ModelWeights w = random_model_weights(tiny_config("llama"), 9, false);
  const std::string dir = scratch_dir("sharded");
  write_safetensors_model(w, dir, WeightType::kF32);
  // Re-split model.safetensors into two shards with an index.
  const SafetensorsFile whole = SafetensorsFile::open(dir + "/model.safetensors");
  SafetensorsWriter a, b;
  nlohmann::json map = nlohmann::json::object();
  for (const SafetensorsTensor& t : whole.tensors()) {
    const bool first = t.name.find("layers.1.") == std::string::npos;
    (first ? a : b).add(t.name, t.dtype, t.shape, whole.data(t));
    map[t.name] = first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  a.write(dir + "/model-00001-of-00002.safetensors");
  b.write(dir + "/model-00002-of-00002.safetensors");
  testing::write_bytes(dir + "/model.safetensors.index.json", [&] {
    const std::string s =
        nlohmann::json{{"metadata", nlohmann::json::object()}, {"weight_map", map}}.dump();
    return std::vector<uint8_t>(s.begin(), s.end());
  }());
  std::filesystem::remove(dir + "/model.safetensors");
  expect_identical_weights(w, load_model_weights(dir));
  expect_identical_weights(w, load_model_weights(dir + "/model.safetensors.index.json"));
  std::filesystem::remove_all(dir);
}

TEST(ModelIo, RealVocabularyModelRoundTrips) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const GgufFile vocab = GgufFile::open(testing::vocab_path("llama-spm"));
  ModelConfig c = tiny_config("llama", vocab.get_array("tokenizer.ggml.tokens").size());
  c.hidden_size = 32;
  c.head_dim = 8;
  c.intermediate_size = 64;
  const ModelWeights w = random_model_weights(c, 11, true);
  const std::string dir = scratch_dir("realvocab");
  write_gguf_model(w, vocab, dir + "/model.gguf", WeightType::kF32);
  write_safetensors_model(w, dir, WeightType::kF32);
  const ModelWeights g = load_model_weights(dir + "/model.gguf");
  expect_identical_weights(w, g);
  expect_identical_weights(g, load_model_weights(dir));
  const GgufFile out = GgufFile::open(dir + "/model.gguf");
  for (const auto& [key, value] : vocab.metadata()) {
    if (key.rfind("tokenizer.", 0) == 0) {
      const GgufValue* copied = out.find(key);
      ASSERT_NE(copied, nullptr) << key;
      EXPECT_TRUE(*copied == value) << key;
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(ModelIo, WritersRejectInconsistentWeights) {
  ModelWeights w = random_model_weights(tiny_config("llama"), 1, false);
  w.layers[1].k_proj.pop_back();
  const std::string dir = scratch_dir("inconsistent");
  EXPECT_THROW(write_safetensors_model(w, dir), std::invalid_argument);
  EXPECT_THROW(write_gguf_model(w, tiny_vocab(), dir + "/m.gguf"), std::invalid_argument);
  const ModelWeights ok = random_model_weights(tiny_config("llama"), 1, false);
  EXPECT_THROW(write_gguf_model(ok, tiny_vocab(95), dir + "/m.gguf"), std::invalid_argument);
  EXPECT_THROW(write_safetensors_model(ok, dir, WeightType::kQ8_0), std::invalid_argument);
  std::filesystem::remove_all(dir);
}

// Llama 3.1 RoPE scaling: GGUF carries it as llama.cpp's F32 rope_freqs.weight (no metadata),
// config.json as its parameters; both load to the same factors and bit-identical weights.
ModelConfig tiny_llama3_config() {
  ModelConfig c = tiny_config("llama");
  c.rope_theta = 500000.0;
  // head_dim 16: wavelengths 6.3, 32.4, 167, 861, 4440, ...; with an original context of 1024 the
  // bands are kept (< 256), smoothed (861) and scaled by 8 (> 1024).
  c.rope_scaling = {RopeScaling::Type::kLlama3, 8.0, 1.0, 4.0, 1024};
  return c;
}

TEST(ModelIo, Llama3RopeScalingLoadsWithIdenticalFactorsBothWays) {
  const ModelWeights w = random_model_weights(tiny_llama3_config(), 13, false);
  const std::string dir = write_both(w, "llama3_rope", WeightType::kF32);
  const std::vector<float> expected = llama3_rope_freq_factors(16, 500000.0, w.config.rope_scaling);
  ASSERT_EQ(expected.size(), 8u);
  EXPECT_EQ(expected[0], 1.0f);
  EXPECT_GT(expected[3], 1.0f);
  EXPECT_LT(expected[3], 8.0f);
  EXPECT_EQ(expected[7], 8.0f);

  const GgufFile f = GgufFile::open(dir + "/model.gguf");
  const GgufTensorInfo* t = f.find_tensor("rope_freqs.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type, GgmlType::kF32);
  EXPECT_EQ(t->dims, std::vector<uint64_t>{8});
  EXPECT_EQ(std::memcmp(t->data, expected.data(), 8 * sizeof(float)), 0);
  EXPECT_FALSE(f.has("llama.rope.scaling.type"));  // llama.cpp writes no llama3 metadata
  EXPECT_EQ(f.get_f32("llama.rope.freq_base"), 500000.0f);

  ModelWeights from_gguf = load_gguf_model_weights(f);
  const ModelWeights from_st = load_model_weights(dir);
  EXPECT_EQ(from_gguf.config.rope_scaling.type, RopeScaling::Type::kNone);
  EXPECT_EQ(from_st.config.rope_scaling.type, RopeScaling::Type::kLlama3);
  ASSERT_EQ(from_gguf.config.rope_freq_factors.size(), 8u);
  ASSERT_EQ(from_st.config.rope_freq_factors.size(), 8u);
  EXPECT_EQ(std::memcmp(from_gguf.config.rope_freq_factors.data(), expected.data(), 32), 0);
  EXPECT_EQ(std::memcmp(from_st.config.rope_freq_factors.data(), expected.data(), 32), 0);
  EXPECT_EQ(rope_freq_factors_of(from_gguf.config), rope_freq_factors_of(from_st.config));
  // Apart from how the scaling is recorded, everything else is identical.
  from_gguf.config.rope_scaling = from_st.config.rope_scaling;
  expect_identical_weights(from_gguf, from_st);
  expect_identical_weights(w, from_st);

  // A GGUF-loaded model writes back to GGUF with the same factors, but config.json has no way
  // to state factors without llama3's parameters.
  from_gguf.config.rope_scaling = {};
  write_gguf_model(from_gguf, tiny_vocab(), dir + "/again.gguf");
  EXPECT_EQ(load_model_weights(dir + "/again.gguf").config.rope_freq_factors, expected);
  EXPECT_THROW(write_safetensors_model(from_gguf, dir + "/st"), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(dir + "/st/model.safetensors")) << "nothing half-written";
  std::filesystem::remove_all(dir);
}

TEST(ModelIo, ModelsWithoutLlama3ScalingHaveNoRopeFreqs) {
  for (const std::string arch : {"llama", "qwen2"}) {
    const ModelWeights w = random_model_weights(tiny_config(arch), 3, false);
    const std::string dir = write_both(w, "no_rope_freqs_" + arch, WeightType::kF32);
    EXPECT_EQ(GgufFile::open(dir + "/model.gguf").find_tensor("rope_freqs.weight"), nullptr);
    EXPECT_TRUE(load_model_weights(dir + "/model.gguf").config.rope_freq_factors.empty());
    EXPECT_TRUE(load_model_weights(dir).config.rope_freq_factors.empty());
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace llm
