// Bad model files give a ModelFormatError naming the file and the tensor or key, never a crash:
// shape contradicting the config, unsupported architecture or type, missing tensors and config,
// every truncation of a GGUF and a safetensors model, and random bit flips (RapidCheck).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/formats/safetensors_writer.h"
#include "backends/model/model_loader.h"
#include "backends/model/model_writer.h"
#include "backends/model/testing/model_test_support.h"
#include "backends/testing/shared_testdata.h"

namespace llm {
namespace {

using testing::scratch_dir;
using testing::tiny_config;
using testing::tiny_vocab;

std::vector<uint8_t> model_gguf_bytes(const ModelConfig& config) {
  const std::string dir = scratch_dir("gguf_bytes");
  write_gguf_model(random_model_weights(config, 2, false), tiny_vocab(), dir + "/m.gguf");
  std::vector<uint8_t> bytes = testing::read_bytes(dir + "/m.gguf");
  std::filesystem::remove_all(dir);
  return bytes;
}

// Copies a GGUF, letting `edit` change metadata and skipping tensors for which `keep` is false.
std::vector<uint8_t> rewrite(const std::vector<uint8_t>& bytes,
                             const std::function<void(GgufWriter&)>& edit,
                             const std::function<bool(const GgufTensorInfo&)>& keep = nullptr) {
  const GgufFile f = GgufFile::parse(bytes, "orig.gguf");
  GgufWriter w;
  for (const auto& [key, value] : f.metadata()) w.set(key, value);
  edit(w);
  for (const GgufTensorInfo& t : f.tensors()) {
    if (keep && !keep(t)) continue;
    w.add_tensor(t.name, t.dims, t.type, std::vector<uint8_t>(t.data, t.data + t.n_bytes));
  }
  return w.to_bytes();
}

// Loads GGUF bytes; returns the ModelFormatError (fails the test when loading succeeds).
ModelFormatError gguf_error(std::vector<uint8_t> bytes) {
  try {
    load_gguf_model_weights(GgufFile::parse(std::move(bytes), "bad.gguf"));
  } catch (const ModelFormatError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error";
  return ModelFormatError("", "", "");
}

TEST(ModelLoaderErrors, GgufShapeContradictingTheConfigNamesTheTensor) {
  ModelConfig c = tiny_config("llama");
  c.num_key_value_heads = 4;
  const auto bytes = rewrite(model_gguf_bytes(c),
                             [](GgufWriter& w) { w.set_u32("llama.attention.head_count_kv", 2); });
  const ModelFormatError e = gguf_error(bytes);
  EXPECT_EQ(e.file(), "bad.gguf");
  EXPECT_EQ(e.field(), "blk.0.attn_k.weight");
  EXPECT_NE(std::string(e.what()).find("shape [64, 64] but the config implies [64, 32]"),
            std::string::npos)
      << e.what();
}

TEST(ModelLoaderErrors, GgufUnsupportedArchitectureAndMissingKeys) {
  const auto base = model_gguf_bytes(tiny_config("llama"));
  ModelFormatError e = gguf_error(
      rewrite(base, [](GgufWriter& w) { w.set_string("general.architecture", "gpt2"); }));
  EXPECT_EQ(e.field(), "general.architecture");
  EXPECT_NE(std::string(e.what()).find("unsupported architecture \"gpt2\""), std::string::npos);

  // A vocabulary file alone has no tensors.
  GgufWriter vocab_only;
  vocab_only.set_string("general.architecture", "llama");
  e = gguf_error(vocab_only.to_bytes());
  EXPECT_EQ(e.field(), "llama.embedding_length");

  e = gguf_error(
      rewrite(base, [](GgufWriter& w) { w.set_u32("llama.attention.head_count_kv", 3); }));
  EXPECT_EQ(e.field(), "llama.attention.head_count_kv");  // 3 does not divide 4
  e = gguf_error(rewrite(base, [](GgufWriter& w) { w.set_u32("llama.block_count", 1u << 30); }));
  EXPECT_EQ(e.field(), "llama.block_count");  // more layers than the file could hold
  e = gguf_error(rewrite(base, [](GgufWriter& w) { w.set_u32("llama.rope.dimension_count", 8); }));
  EXPECT_EQ(e.field(), "llama.rope.dimension_count");
  e = gguf_error(
      rewrite(base, [](GgufWriter& w) { w.set_string("llama.rope.scaling.type", "yarn"); }));
  EXPECT_EQ(e.field(), "llama.rope.scaling.type");
}

TEST(ModelLoaderErrors, GgufMissingTensorAndUnsupportedType) {
  const auto base = model_gguf_bytes(tiny_config("llama"));
  ModelFormatError e = gguf_error(rewrite(
      base, [](GgufWriter&) {},
      [](const GgufTensorInfo& t) { return t.name != "blk.1.ffn_up.weight"; }));
  EXPECT_EQ(e.field(), "blk.1.ffn_up.weight");
  EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);

  // Replace ffn_gate of layer 0 by a Q4_0 tensor of the right shape.
  const GgufFile f = GgufFile::parse(base, "orig.gguf");
  GgufWriter w;
  for (const auto& [key, value] : f.metadata()) w.set(key, value);
  for (const GgufTensorInfo& t : f.tensors()) {
    if (t.name == "blk.0.ffn_gate.weight") {
      w.add_tensor(t.name, t.dims, GgmlType::kQ4_0,
                   std::vector<uint8_t>(t.n_elements / 32 * 18, 0));
    } else {
      w.add_tensor(t.name, t.dims, t.type, std::vector<uint8_t>(t.data, t.data + t.n_bytes));
    }
  }
  e = gguf_error(w.to_bytes());
  EXPECT_EQ(e.field(), "blk.0.ffn_gate.weight");
  EXPECT_NE(std::string(e.what()).find("type Q4_0 is unsupported"), std::string::npos) << e.what();
}

// rope_freqs.weight (Llama 3.1 RoPE factors) must be head_dim / 2 finite positive F32 values.
TEST(ModelLoaderErrors, GgufRopeFreqsOfTheWrongSizeTypeOrValueNamesTheTensor) {
  ModelConfig c = tiny_config("llama");  // head_dim 16: 8 factors
  c.rope_scaling = {RopeScaling::Type::kLlama3, 8.0, 1.0, 4.0, 1024};
  const auto base = model_gguf_bytes(c);
  ASSERT_NE(GgufFile::parse(base, "base.gguf").find_tensor("rope_freqs.weight"), nullptr);
  auto replaced = [&](std::vector<uint64_t> dims, GgmlType type, std::vector<uint8_t> data) {
    return rewrite(
        base,
        [&](GgufWriter& w) { w.add_tensor("rope_freqs.weight", dims, type, std::move(data)); },
        [](const GgufTensorInfo& t) { return t.name != "rope_freqs.weight"; });
  };
  auto f32 = [](std::vector<float> v) {
    std::vector<uint8_t> b(v.size() * sizeof(float));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  struct Case {
    const char* name;
    std::vector<uint8_t> bytes;
    const char* message_part;
  };
  const std::vector<Case> cases = {
      {"7 factors", replaced({7}, GgmlType::kF32, f32(std::vector<float>(7, 2.0f))),
       "shape [7] but head dimension 16 needs [8]"},
      {"16 factors", replaced({16}, GgmlType::kF32, f32(std::vector<float>(16, 2.0f))),
       "needs [8]"},
      {"2-D", replaced({8, 1}, GgmlType::kF32, f32(std::vector<float>(8, 2.0f))), "needs [8]"},
      {"F16", replaced({8}, GgmlType::kF16, std::vector<uint8_t>(16, 0)), "type F16"},
      {"zero factor", replaced({8}, GgmlType::kF32, f32({1, 1, 1, 0, 8, 8, 8, 8})), "factor 3"},
      {"negative factor", replaced({8}, GgmlType::kF32, f32({1, 1, 1, 2, 8, 8, -8, 8})),
       "factor 6"},
  };
  for (const Case& k : cases) {
    const ModelFormatError e = gguf_error(k.bytes);
    EXPECT_EQ(e.file(), "bad.gguf") << k.name;
    EXPECT_EQ(e.field(), "rope_freqs.weight") << k.name;
    EXPECT_NE(std::string(e.what()).find(k.message_part), std::string::npos)
        << k.name << ": " << e.what();
  }
  // The same tensor with sound values loads, with those factors.
  const std::vector<float> ok = {1, 1, 1.5f, 3, 8, 8, 8, 8};
  const ModelWeights w =
      load_gguf_model_weights(GgufFile::parse(replaced({8}, GgmlType::kF32, f32(ok)), "ok.gguf"));
  EXPECT_EQ(w.config.rope_freq_factors, ok);
}

TEST(ModelLoaderErrors, GgufErrorIsAModelFormatError) {
  EXPECT_THROW(load_model_weights("/nonexistent/model.gguf"), ModelFormatError);
  const std::string dir = scratch_dir("notgguf");
  testing::write_bytes(dir + "/x.gguf", {'G', 'G', 'U', 'X', 3, 0, 0, 0});
  EXPECT_THROW(load_model_weights(dir + "/x.gguf"), GgufError);
  EXPECT_THROW(load_model_weights(dir + "/x.gguf"), ModelFormatError);
  std::filesystem::remove_all(dir);
}

// Every cut of the header and a sample of cuts in the data give an error; never a crash.
TEST(ModelLoaderErrors, EveryTruncatedGgufModelIsAnError) {
  const auto bytes = model_gguf_bytes(tiny_config("qwen2"));
  const GgufFile whole = GgufFile::parse(bytes, "whole.gguf");
  const uint64_t last_data = whole.tensors().back().offset + whole.tensors().back().n_bytes;
  const uint64_t needed = whole.data_offset() + last_data;
  int errors = 0;
  for (uint64_t n = 0; n < needed; n += (n < whole.data_offset() + 64 ? 1 : 61)) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    try {
      load_gguf_model_weights(GgufFile::parse(std::move(cut), "cut.gguf"));
      ADD_FAILURE() << "truncated to " << n << " of " << bytes.size() << " bytes loaded";
    } catch (const ModelFormatError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 100);
}

TEST(ModelLoaderErrors, EveryTruncatedSafetensorsModelIsAnError) {
  const std::string dir = scratch_dir("st_trunc");
  write_safetensors_model(random_model_weights(tiny_config("llama"), 2, false), dir);
  const auto bytes = testing::read_bytes(dir + "/model.safetensors");
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | bytes[static_cast<size_t>(i)];
  for (uint64_t n = 0; n < bytes.size(); n += (n < header + 80 ? 7 : 997)) {
    testing::write_bytes(dir + "/model.safetensors",
                         {bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n)});
    EXPECT_THROW(load_model_weights(dir), ModelFormatError) << "truncated to " << n;
  }
  std::filesystem::remove_all(dir);
}

TEST(ModelLoaderErrors, SafetensorsShapeDtypeMissingTensorAndConfig) {
  const std::string dir = scratch_dir("st_errors");
  const ModelWeights w = random_model_weights(tiny_config("llama"), 2, false);
  write_safetensors_model(w, dir);
  const std::string config_text = testing::read_text_file(dir + "/config.json");
  auto expect_error = [&](const std::string& field, const std::string& fragment) {
    try {
      load_model_weights(dir);
      ADD_FAILURE() << "loaded without error; expected " << fragment;
    } catch (const ModelFormatError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  auto write_config = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(config_text);
    edit(j);
    const std::string s = j.dump();
    testing::write_bytes(dir + "/config.json", {s.begin(), s.end()});
  };

  write_config([](nlohmann::json& j) { j["num_key_value_heads"] = 1; });
  expect_error("model.layers.0.self_attn.k_proj.weight",
               "shape [32, 64] but config.json implies [16, 64]");
  write_config([](nlohmann::json& j) {
    j["architectures"] = {"MistralForCausalLM"};
    j["model_type"] = "mistral";
  });
  expect_error("architectures", "unsupported architecture");
  write_config([](nlohmann::json& j) { j["mlp_bias"] = true; });
  expect_error("mlp_bias", "unsupported");
  write_config([](nlohmann::json& j) { j["num_hidden_layers"] = 1 << 30; });
  expect_error("num_hidden_layers", "layers");
  write_config([](nlohmann::json& j) { j["tie_word_embeddings"] = true; });
  load_model_weights(dir);  // tied: lm_head.weight present but unused is fine
  write_config([](nlohmann::json&) {});

  // Missing tensor, then an unsupported dtype.
  SafetensorsWriter missing, ints;
  for (const ModelTensor& t : model_tensors(w.config)) {
    const std::vector<float>& d = tensor_data(w, t);
    if (t.hf_name != "model.layers.1.mlp.up_proj.weight") missing.add_f32(t.hf_name, t.shape, d);
    if (t.hf_name == "model.norm.weight") {
      const std::vector<int32_t> v(d.size(), 1);
      ints.add(t.hf_name, SafetensorsDType::kI32, t.shape, std::as_bytes(std::span(v)));
    } else {
      ints.add_f32(t.hf_name, t.shape, d);
    }
  }
  missing.write(dir + "/model.safetensors");
  expect_error("model.layers.1.mlp.up_proj.weight", "missing");
  ints.write(dir + "/model.safetensors");
  expect_error("model.norm.weight", "dtype I32 is unsupported");

  std::filesystem::remove(dir + "/model.safetensors");
  expect_error("model.safetensors", "missing");
  std::filesystem::remove(dir + "/config.json");
  expect_error("config.json", "missing");
  std::filesystem::remove_all(dir);
}

// Random bit flips anywhere in a small GGUF model: a load or a ModelFormatError, nothing else.
RC_GTEST_PROP(ModelLoaderProperty, BitFlippedGgufLoadsOrGivesAModelFormatError,
              (std::vector<uint32_t> positions)) {
  static const std::vector<uint8_t> base = [] {
    ModelConfig c = tiny_config("llama", 40);
    c.hidden_size = 16;
    c.head_dim = 4;
    c.intermediate_size = 32;
    const std::string dir = scratch_dir("flip");
    write_gguf_model(random_model_weights(c, 2, false), tiny_vocab(40), dir + "/m.gguf");
    auto b = testing::read_bytes(dir + "/m.gguf");
    std::filesystem::remove_all(dir);
    return b;
  }();
  static const uint64_t data_offset = GgufFile::parse(base).data_offset();
  std::vector<uint8_t> bytes = base;
  for (uint32_t p : positions) {
    // Mostly the header (where flips change the structure), sometimes the data.
    const uint64_t at = p % 4 == 0 ? p % bytes.size() : p % data_offset;
    bytes[at] ^= static_cast<uint8_t>(1u << (p / 7 % 8));
  }
  try {
    const ModelWeights w = load_gguf_model_weights(GgufFile::parse(std::move(bytes), "flip"));
    RC_ASSERT(w.layers.size() == static_cast<size_t>(w.config.num_hidden_layers));
    RC_TAG("loaded");
  } catch (const ModelFormatError&) {
    RC_TAG("ModelFormatError");
  }
}

}  // namespace
}  // namespace llm
