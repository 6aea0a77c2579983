// config.json tests: real Llama 3.1 / Llama 2 / Qwen2.5 configs, defaults, and a table of errors.
#include "backends/model/hf_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "backends/model/rope_factors.h"

namespace llm {
namespace {

using nlohmann::json;

// meta-llama/Llama-3.1-8B config.json.
const char* kLlama31_8B = R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": 128001,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3"
  },
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
})";

// Qwen/Qwen2.5-7B config.json.
const char* kQwen25_7B = R"({
  "architectures": ["Qwen2ForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151643,
  "hidden_act": "silu",
  "hidden_size": 3584,
  "initializer_range": 0.02,
  "intermediate_size": 18944,
  "max_position_embeddings": 131072,
  "max_window_layers": 28,
  "model_type": "qwen2",
  "num_attention_heads": 28,
  "num_hidden_layers": 28,
  "num_key_value_heads": 4,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 131072,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 152064
})";

TEST(HfConfig, Llama31_8B) {
  ModelConfig c = parse_hf_config_text(kLlama31_8B, "config.json");
  EXPECT_EQ(c.architecture, "llama");
  EXPECT_EQ(c.vocab_size, 128256);
  EXPECT_EQ(c.hidden_size, 4096);
  EXPECT_EQ(c.intermediate_size, 14336);
  EXPECT_EQ(c.num_hidden_layers, 32);
  EXPECT_EQ(c.num_attention_heads, 32);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.head_dim, 128);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-5);
  EXPECT_DOUBLE_EQ(c.rope_theta, 500000.0);
  EXPECT_EQ(c.rope_scaling.type, RopeScaling::Type::kLlama3);
  EXPECT_DOUBLE_EQ(c.rope_scaling.factor, 8.0);
  EXPECT_DOUBLE_EQ(c.rope_scaling.low_freq_factor, 1.0);
  EXPECT_DOUBLE_EQ(c.rope_scaling.high_freq_factor, 4.0);
  EXPECT_EQ(c.rope_scaling.original_max_position_embeddings, 8192);
  EXPECT_EQ(c.max_position_embeddings, 131072);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.attention_bias);
  EXPECT_EQ(c.bos_token_id, 128000);
  EXPECT_EQ(c.eos_token_ids, (std::vector<int32_t>{128001}));
  EXPECT_EQ(c.torch_dtype, "bfloat16");
}

// rope_scaling llama3 is turned into the per-frequency factors the backends use, once, here.
TEST(HfConfig, Llama31RopeScalingBecomesFrequencyFactors) {
  const ModelConfig c = parse_hf_config_text(kLlama31_8B, "config.json");
  ASSERT_EQ(c.rope_freq_factors.size(), 64u);
  EXPECT_EQ(c.rope_freq_factors, llama3_rope_freq_factors(128, 500000.0, c.rope_scaling));
  EXPECT_EQ(c.rope_freq_factors[0], 1.0f);
  EXPECT_EQ(c.rope_freq_factors[63], 8.0f);
  EXPECT_TRUE(parse_hf_config_text(kQwen25_7B, "config.json").rope_freq_factors.empty());

  // config.json states parameters, never factors: other factors cannot be written.
  ModelConfig other = c;
  other.rope_freq_factors[40] = 7.0f;
  EXPECT_THROW(hf_config_to_json(other), std::invalid_argument);
  other.rope_freq_factors = c.rope_freq_factors;
  other.rope_scaling = {};  // as loaded from a GGUF's rope_freqs.weight
  EXPECT_THROW(hf_config_to_json(other), std::invalid_argument);
  EXPECT_EQ(parse_hf_config(hf_config_to_json(c), "again").rope_freq_factors, c.rope_freq_factors);
}

TEST(HfConfig, Llama31InstructEosList) {
  json j = json::parse(kLlama31_8B);
  j["eos_token_id"] = {128001, 128008, 128009};
  ModelConfig c = parse_hf_config(j, "config.json");
  EXPECT_EQ(c.eos_token_ids, (std::vector<int32_t>{128001, 128008, 128009}));
}

TEST(HfConfig, Qwen25_7B) {
  ModelConfig c = parse_hf_config_text(kQwen25_7B, "config.json");
  EXPECT_EQ(c.architecture, "qwen2");
  EXPECT_EQ(c.vocab_size, 152064);
  EXPECT_EQ(c.hidden_size, 3584);
  EXPECT_EQ(c.intermediate_size, 18944);
  EXPECT_EQ(c.num_hidden_layers, 28);
  EXPECT_EQ(c.num_attention_heads, 28);
  EXPECT_EQ(c.num_key_value_heads, 4);
  EXPECT_EQ(c.head_dim, 128);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.rope_theta, 1e6);
  EXPECT_EQ(c.rope_scaling.type, RopeScaling::Type::kNone);
  EXPECT_EQ(c.max_position_embeddings, 131072);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_TRUE(c.attention_bias);  // Qwen2 always has QKV bias
  EXPECT_EQ(c.bos_token_id, 151643);
  EXPECT_EQ(c.eos_token_ids, (std::vector<int32_t>{151643}));
  EXPECT_EQ(c.torch_dtype, "bfloat16");
}

TEST(HfConfig, DefaultsLikeTransformers) {
  // Llama 2 style: no num_key_value_heads, head_dim, rope_theta, bos/eos; nulls mean "default".
  json j = {
      {"model_type", "llama"},          {"vocab_size", 32000},     {"hidden_size", 4096},
      {"intermediate_size", 11008},     {"num_hidden_layers", 32}, {"num_attention_heads", 32},
      {"num_key_value_heads", nullptr}, {"rope_scaling", nullptr}};
  ModelConfig c = parse_hf_config(j, "llama2.json");
  EXPECT_EQ(c.architecture, "llama");
  EXPECT_EQ(c.num_key_value_heads, 32);
  EXPECT_EQ(c.head_dim, 128);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.rope_theta, 10000.0);
  EXPECT_EQ(c.max_position_embeddings, 2048);
  EXPECT_EQ(c.bos_token_id, 1);
  EXPECT_EQ(c.eos_token_ids, (std::vector<int32_t>{2}));
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.attention_bias);
  EXPECT_EQ(c.torch_dtype, "");

  // Qwen2.5-0.5B-like: tied embeddings, no bos/eos given, head_dim explicit, "dtype" key.
  json q = {{"architectures", {"Qwen2ForCausalLM"}},
            {"vocab_size", 151936},
            {"hidden_size", 896},
            {"intermediate_size", 4864},
            {"num_hidden_layers", 24},
            {"num_attention_heads", 14},
            {"num_key_value_heads", 2},
            {"tie_word_embeddings", true},
            {"attention_bias", false},
            {"dtype", "float32"}};
  ModelConfig qc = parse_hf_config(q, "qwen.json");
  EXPECT_EQ(qc.architecture, "qwen2");
  EXPECT_EQ(qc.head_dim, 64);
  EXPECT_TRUE(qc.tie_word_embeddings);
  EXPECT_TRUE(qc.attention_bias);
  EXPECT_EQ(qc.max_position_embeddings, 32768);
  EXPECT_EQ(qc.bos_token_id, -1);
  EXPECT_TRUE(qc.eos_token_ids.empty());
  EXPECT_EQ(qc.torch_dtype, "float32");

  // head_dim given explicitly need not be hidden / heads.
  json h = j;
  h["hidden_size"] = 100;
  h["num_attention_heads"] = 3;
  h["head_dim"] = 64;
  EXPECT_EQ(parse_hf_config(h, "h.json").head_dim, 64);
}

TEST(HfConfig, LoadFromFile) {
  auto path = std::filesystem::temp_directory_path() /
              ("hf_config_test_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << kQwen25_7B;
  EXPECT_EQ(load_hf_config(path.string()).hidden_size, 3584);
  std::filesystem::remove(path);
  EXPECT_THROW(load_hf_config(path.string()), ModelFormatError);
}

struct ErrorCase {
  const char* name;
  const char* base;  // kLlama31_8B or kQwen25_7B
  std::function<void(json&)> edit;
  const char* field;  // ModelFormatError::field()
  const char* message_part;
};

TEST(HfConfig, Errors) {
  const std::vector<ErrorCase> cases = {
      {"mistral", kLlama31_8B, [](json& j) { j["architectures"] = {"MistralForCausalLM"}; },
       "architectures", "unsupported architecture \"MistralForCausalLM\""},
      {"model_type", kLlama31_8B, [](json& j) { j["model_type"] = "gemma"; }, "model_type",
       "unsupported model_type"},
      {"arch_mismatch", kLlama31_8B, [](json& j) { j["model_type"] = "qwen2"; }, "model_type",
       "contradicts"},
      {"no_arch", kLlama31_8B,
       [](json& j) {
         j.erase("architectures");
         j.erase("model_type");
       },
       "model_type", "missing"},
      {"arch_not_list", kLlama31_8B, [](json& j) { j["architectures"] = "LlamaForCausalLM"; },
       "architectures", "non-empty list"},
      {"missing_hidden", kLlama31_8B, [](json& j) { j.erase("hidden_size"); }, "hidden_size",
       "missing"},
      {"missing_vocab", kQwen25_7B, [](json& j) { j.erase("vocab_size"); }, "vocab_size",
       "missing"},
      {"string_layers", kLlama31_8B, [](json& j) { j["num_hidden_layers"] = "32"; },
       "num_hidden_layers", "must be an integer"},
      {"float_heads", kLlama31_8B, [](json& j) { j["num_attention_heads"] = 32.0; },
       "num_attention_heads", "must be an integer"},
      {"zero_heads", kLlama31_8B, [](json& j) { j["num_attention_heads"] = 0; },
       "num_attention_heads", "must be positive"},
      {"huge", kLlama31_8B, [](json& j) { j["vocab_size"] = 1ull << 40; }, "vocab_size",
       "too large"},
      {"indivisible", kLlama31_8B, [](json& j) { j["num_attention_heads"] = 30; }, "hidden_size",
       "not divisible"},
      {"kv_not_dividing", kQwen25_7B, [](json& j) { j["num_key_value_heads"] = 3; },
       "num_key_value_heads", "does not divide"},
      {"kv_more_than_heads", kLlama31_8B, [](json& j) { j["num_key_value_heads"] = 64; },
       "num_key_value_heads", "does not divide"},
      {"odd_head_dim", kLlama31_8B, [](json& j) { j["head_dim"] = 127; }, "head_dim", "even"},
      {"eps_string", kLlama31_8B, [](json& j) { j["rms_norm_eps"] = "1e-5"; }, "rms_norm_eps",
       "must be a number"},
      {"theta_negative", kLlama31_8B, [](json& j) { j["rope_theta"] = -1; }, "rope_theta",
       "positive"},
      {"tie_int", kLlama31_8B, [](json& j) { j["tie_word_embeddings"] = 1; }, "tie_word_embeddings",
       "true or false"},
      {"gelu", kLlama31_8B, [](json& j) { j["hidden_act"] = "gelu"; }, "hidden_act",
       "unsupported activation"},
      {"sliding", kQwen25_7B, [](json& j) { j["use_sliding_window"] = true; }, "use_sliding_window",
       "not supported"},
      {"yarn", kLlama31_8B, [](json& j) { j["rope_scaling"]["rope_type"] = "yarn"; },
       "rope_scaling.rope_type", "unsupported RoPE scaling"},
      {"llama3_missing", kLlama31_8B, [](json& j) { j["rope_scaling"].erase("low_freq_factor"); },
       "rope_scaling.low_freq_factor", "missing"},
      {"rope_scaling_list", kLlama31_8B, [](json& j) { j["rope_scaling"] = json::array(); },
       "rope_scaling", "must be an object"},
      {"eos_out_of_vocab", kLlama31_8B, [](json& j) { j["eos_token_id"] = 128256; }, "eos_token_id",
       "outside the vocabulary"},
      {"eos_negative", kLlama31_8B,
       [](json& j) {
         j["eos_token_id"] = {128001, -5};
       },
       "eos_token_id", "outside the vocabulary"},
      {"bos_list", kLlama31_8B,
       [](json& j) {
         j["bos_token_id"] = {1, 2};
       },
       "bos_token_id", "must be an integer"},
      {"dtype_number", kLlama31_8B, [](json& j) { j["torch_dtype"] = 16; }, "torch_dtype",
       "must be a string"},
  };
  for (const ErrorCase& c : cases) {
    json j = json::parse(c.base);
    c.edit(j);
    try {
      parse_hf_config(j, "models/x/config.json");
      ADD_FAILURE() << c.name << ": parsed";
    } catch (const ModelFormatError& e) {
      EXPECT_EQ(e.file(), "models/x/config.json") << c.name;
      EXPECT_EQ(e.field(), c.field) << c.name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message_part), std::string::npos)
          << c.name << ": " << e.what();
    }
  }
}

TEST(HfConfig, NotJson) {
  EXPECT_THROW(parse_hf_config_text("{\"vocab_size\": ", "c.json"), ModelFormatError);
  EXPECT_THROW(parse_hf_config_text("[]", "c.json"), ModelFormatError);
}

// Found by fuzz/profile_fuzz (the input, minimised, is fuzz/regressions/profile/
// hf_config_huge_original_max_position_embeddings less its selector byte): a llama3
// original_max_position_embeddings far beyond int64 was cast to int64 before its range check
// (undefined behaviour, a UBSan abort).
TEST(HfConfig, HugeOriginalMaxPositionEmbeddingsIsAnErrorNotUndefinedBehaviour) {
  const std::string text =
      R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 64, "intermediate_size": 96, )"
      R"("num_attention_heads": 8, "num_hidden_layers": 1, "vocab_size": 100, "rope_scaling": )"
      R"({"rope_type": "llama3", "factor": 5, "low_freq_factor": 1, "high_freq_factor": 9, )"
      R"("original_max_position_embeddings": 1e53}})";
  try {
    parse_hf_config_text(text, "c.json");
    ADD_FAILURE() << "parsed";
  } catch (const ModelFormatError& e) {
    EXPECT_EQ(e.field(), "rope_scaling.original_max_position_embeddings") << e.what();
    EXPECT_NE(std::string(e.what()).find("must be an integer"), std::string::npos) << e.what();
  }
}

// hf_config_to_json writes what parse_hf_config reads back to the same config.
TEST(HfConfig, ToJsonRoundTrips) {
  ModelConfig llama;
  llama.architecture = "llama";
  llama.vocab_size = 128256;
  llama.hidden_size = 4096;
  llama.intermediate_size = 14336;
  llama.num_hidden_layers = 32;
  llama.num_attention_heads = 32;
  llama.num_key_value_heads = 8;
  llama.head_dim = 128;
  llama.rms_norm_eps = 1e-5;
  llama.rope_theta = 500000.0;
  llama.rope_scaling = {RopeScaling::Type::kLlama3, 8.0, 1.0, 4.0, 8192};
  llama.max_position_embeddings = 131072;
  llama.bos_token_id = 128000;
  llama.eos_token_ids = {128001, 128008, 128009};
  llama.torch_dtype = "bfloat16";
  ModelConfig qwen = llama;
  qwen.architecture = "qwen2";
  qwen.vocab_size = 152064;
  qwen.head_dim = 96;  // not hidden / heads
  qwen.rope_scaling = {RopeScaling::Type::kLinear, 2.0, 1.0, 4.0, 0};
  qwen.tie_word_embeddings = true;
  qwen.attention_bias = true;
  qwen.bos_token_id = -1;
  qwen.eos_token_ids = {151645};
  qwen.torch_dtype = "";
  for (const ModelConfig& c : {llama, qwen}) {
    const json j = hf_config_to_json(c);
    EXPECT_EQ(j["architectures"][0],
              c.architecture == "qwen2" ? "Qwen2ForCausalLM" : "LlamaForCausalLM");
    const ModelConfig b = parse_hf_config_text(j.dump(), "round-trip");
    EXPECT_EQ(b.architecture, c.architecture);
    EXPECT_EQ(b.vocab_size, c.vocab_size);
    EXPECT_EQ(b.hidden_size, c.hidden_size);
    EXPECT_EQ(b.intermediate_size, c.intermediate_size);
    EXPECT_EQ(b.num_hidden_layers, c.num_hidden_layers);
    EXPECT_EQ(b.num_attention_heads, c.num_attention_heads);
    EXPECT_EQ(b.num_key_value_heads, c.num_key_value_heads);
    EXPECT_EQ(b.head_dim, c.head_dim);
    EXPECT_EQ(b.rms_norm_eps, c.rms_norm_eps);
    EXPECT_EQ(b.rope_theta, c.rope_theta);
    EXPECT_EQ(b.rope_scaling.type, c.rope_scaling.type);
    EXPECT_EQ(b.rope_scaling.factor, c.rope_scaling.factor);
    if (c.rope_scaling.type == RopeScaling::Type::kLlama3) {
      EXPECT_EQ(b.rope_scaling.low_freq_factor, c.rope_scaling.low_freq_factor);
      EXPECT_EQ(b.rope_scaling.high_freq_factor, c.rope_scaling.high_freq_factor);
      EXPECT_EQ(b.rope_scaling.original_max_position_embeddings,
                c.rope_scaling.original_max_position_embeddings);
    }
    EXPECT_EQ(b.max_position_embeddings, c.max_position_embeddings);
    EXPECT_EQ(b.tie_word_embeddings, c.tie_word_embeddings);
    EXPECT_EQ(b.attention_bias, c.attention_bias);
    EXPECT_EQ(b.bos_token_id, c.bos_token_id);
    EXPECT_EQ(b.eos_token_ids, c.eos_token_ids);
    EXPECT_EQ(b.torch_dtype, c.torch_dtype);
  }
}

}  // namespace
}  // namespace llm
