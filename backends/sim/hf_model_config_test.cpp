// Tests of the Hugging Face config.json loader: real configs of each modelled family (parameter
// counts checked against the checkpoints' published totals), the weight widths of FP8
// checkpoints and of --dtype/--quantization, and refusals that name the field.
// Thread-safety: single-threaded tests; fixtures go to gtest's temp directory.
#include "backends/sim/hf_model_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "backends/sim/presets.h"
#include "backends/testing/error_message.h"

namespace llm {
namespace {

using testing::invalid_argument_message;

const std::string kConfigs = LLM_SOURCE_DIR "/backends/sim/testdata/hf-configs/";

std::string write_config(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "hf_model_config_test_" + name + ".json";
  std::ofstream(path) << text;
  return path;
}

const char* kLlamaConfig = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
  "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
  "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256, "tie_word_embeddings": true,
  "max_position_embeddings": 131072, "torch_dtype": "bfloat16"
})";

TEST(HfModelConfig, DenseFamiliesMatchPublishedParameterCounts) {
  struct Case {
    const char* folder;
    int64_t params;  // the checkpoint's safetensors total
    int64_t layers, heads, kv_heads, head_dim, ffn, max_context;
  };
  const Case cases[] = {
      {"llama-3.1-8b-instruct", 8030261248, 32, 32, 8, 128, 14336, 131072},
      {"qwen2.5-7b-instruct", 7615616512, 28, 28, 4, 128, 18944, 32768},           // QKV biases
      {"qwen3-14b", 14768307200, 40, 40, 8, 128, 17408, 40960},                    // q/k norms
      {"mistral-nemo-instruct-2407", 12247782400, 40, 32, 8, 128, 14336, 131072},  // head_dim
  };
  for (const Case& c : cases) {
    const ModelShape m = load_hf_model_config(kConfigs + c.folder);  // a folder
    EXPECT_EQ(m.params, c.params) << c.folder;
    EXPECT_EQ(m.layers, c.layers) << c.folder;
    EXPECT_EQ(m.heads, c.heads) << c.folder;
    EXPECT_EQ(m.kv_heads, c.kv_heads) << c.folder;
    EXPECT_EQ(m.head_dim, c.head_dim) << c.folder;
    EXPECT_EQ(m.ffn, c.ffn) << c.folder;
    EXPECT_EQ(m.max_context, c.max_context) << c.folder;
    EXPECT_FALSE(is_moe(m)) << c.folder;
    EXPECT_EQ(model_weight_bytes(m), 2.0 * static_cast<double>(c.params)) << c.folder;
  }
  // Mistral-Nemo's head_dim (128) is not hidden / heads (160): the config's value wins.
  EXPECT_EQ(load_hf_model_config(kConfigs + "mistral-nemo-instruct-2407/config.json").hidden, 5120);
}

TEST(HfModelConfig, MixtureOfExperts) {
  const ModelShape mixtral = load_hf_model_config(kConfigs + "mixtral-8x7b-v0.1");
  EXPECT_EQ(mixtral.params, 46702792704);
  EXPECT_EQ(mixtral.moe_layers, 32);
  EXPECT_EQ(mixtral.num_experts, 8);
  EXPECT_EQ(mixtral.experts_per_token, 2);
  EXPECT_EQ(mixtral.expert_ffn, 14336);
  EXPECT_EQ(mixtral.shared_expert_ffn, 0);

  const ModelShape qwen = load_hf_model_config(kConfigs + "qwen3-30b-a3b");
  EXPECT_EQ(qwen.params, 30532122624);
  EXPECT_EQ(qwen.moe_layers, 48);
  EXPECT_EQ(qwen.num_experts, 128);
  EXPECT_EQ(qwen.experts_per_token, 8);
  EXPECT_EQ(qwen.expert_ffn, 768);
}

TEST(HfModelConfig, Llama4TextConfigAndFp8Checkpoint) {
  const ModelShape scout =
      load_hf_model_config(kConfigs + "llama-4-scout-17b-16e-instruct-fp8-dynamic");
  // The text model of Llama-4-Scout: 48 layers, each with 16 experts and a shared expert.
  EXPECT_EQ(scout.layers, 48);
  EXPECT_EQ(scout.hidden, 5120);
  EXPECT_EQ(scout.moe_layers, 48);
  EXPECT_EQ(scout.num_experts, 16);
  EXPECT_EQ(scout.experts_per_token, 1);
  EXPECT_EQ(scout.expert_ffn, 8192);
  EXPECT_EQ(scout.shared_expert_ffn, 8192);
  EXPECT_EQ(scout.vocab, 202048);
  EXPECT_EQ(scout.params, 107769861120);  // 108.6B with the vision tower, which is not modelled
  // compressed-tensors FP8: the experts in 8 bits, the attention projections kept in bf16 (its
  // ignore list), embeddings and LM head in bf16.
  EXPECT_EQ(mlp_weight_bytes(scout), 1);
  EXPECT_EQ(attention_weight_bytes(scout), 2);
  const LayerMatrices x = layer_matrices(scout);
  const double mlp = 48.0 * (16 * x.expert + x.shared_expert);
  EXPECT_DOUBLE_EQ(model_weight_bytes(scout), 2.0 * static_cast<double>(scout.params) - mlp);
}

TEST(HfModelConfig, TiedEmbeddingsAndDefaults) {
  const ModelShape m = load_hf_model_config(write_config("tied", kLlamaConfig));
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.params, 1235814400);  // Llama-3.2-1B
  EXPECT_EQ(m.params, find_model_preset("Llama-3.2-1B")->params);

  // num_key_value_heads defaults to the heads (MHA), head_dim to hidden / heads.
  std::string text = kLlamaConfig;
  text.replace(text.find("\"num_key_value_heads\": 8,"), 25, "");
  text.replace(text.find("\"head_dim\": 64,"), 15, "");
  const ModelShape mha = load_hf_model_config(write_config("mha", text));
  EXPECT_EQ(mha.kv_heads, 32);
  EXPECT_EQ(mha.head_dim, 64);
}

TEST(HfModelConfig, LoadModelShapeTakesConfigsBesideTheSchema) {
  EXPECT_TRUE(is_hf_model_config(kConfigs + "qwen3-14b"));
  EXPECT_TRUE(is_hf_model_config(kConfigs + "qwen3-14b/config.json"));
  EXPECT_FALSE(is_hf_model_config("Llama-3.1-8B"));
  EXPECT_EQ(load_model_shape(kConfigs + "qwen3-14b").params, 14768307200);
  EXPECT_EQ(load_model_shape("Llama-3.1-8B").params, 8030261248);
  const std::string schema = write_config("schema", R"({
    "name": "S", "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16,
    "ffn": 128, "vocab": 100, "max_context": 512})");
  EXPECT_FALSE(is_hf_model_config(schema));
  EXPECT_EQ(load_model_shape(schema).name, "S");
}

TEST(HfModelConfig, RefusesWhatItCannotModelNamingTheField) {
  const std::string mla =
      invalid_argument_message([] { load_hf_model_config(kConfigs + "deepseek-v2-lite"); });
  EXPECT_NE(mla.find("architectures"), std::string::npos) << mla;
  EXPECT_NE(mla.find("DeepseekV2ForCausalLM"), std::string::npos) << mla;
  EXPECT_NE(invalid_argument_message([] {
              load_hf_model_config(kConfigs + "glm-5.2-fp8");
            }).find("architectures"),
            std::string::npos);

  struct Case {
    const char* name;
    std::string from, to;
    const char* field;
  };
  const Case cases[] = {
      {"latent", "\"hidden_size\"", "\"kv_lora_rank\": 512, \"hidden_size\"", "kv_lora_rank"},
      {"window", "\"model_type\": \"llama\"",
       "\"model_type\": \"llama\", \"use_sliding_window\": true, \"sliding_window\": 4096",
       "sliding_window"},
      {"dtype", "bfloat16", "int8", "torch_dtype"},
      {"no_layers", "\"num_hidden_layers\": 16,", "", "num_hidden_layers"},
      {"kv_not_dividing", "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 5",
       "num_key_value_heads"},
      {"zero_vocab", "128256", "0", "vocab_size"},
      {"string_size", "2048", "\"2048\"", "hidden_size"},
      {"arch", "LlamaForCausalLM", "GPT2LMHeadModel", "architectures"},
      {"awq", "\"torch_dtype\"",
       "\"quantization_config\": {\"quant_method\": \"awq\"}, \"torch_dtype\"",
       "quantization_config.quant_method"},
      {"int4", "\"torch_dtype\"",
       "\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"config_groups\": "
       "{\"g\": {\"weights\": {\"num_bits\": 4}}}}, \"torch_dtype\"",
       "num_bits"},
  };
  for (const Case& c : cases) {
    std::string text = kLlamaConfig;
    text.replace(text.find(c.from), c.from.size(), c.to);
    const std::string path = write_config(c.name, text);
    const std::string error = invalid_argument_message([&] { load_hf_model_config(path); });
    EXPECT_NE(error.find(path), std::string::npos) << c.name << ": " << error;
    EXPECT_NE(error.find(c.field), std::string::npos) << c.name << ": " << error;
  }
  const std::string missing =
      invalid_argument_message([] { load_hf_model_config("/nonexistent/config.json"); });
  EXPECT_NE(missing.find("/nonexistent/config.json"), std::string::npos) << missing;
}

TEST(HfModelConfig, Fp8ConfigAndQuantizationFlag) {
  std::string text = kLlamaConfig;
  text.replace(text.find("\"torch_dtype\""), 13,
               "\"quantization_config\": {\"quant_method\": \"fp8\", \"fmt\": \"e4m3\"}, "
               "\"torch_dtype\"");
  const ModelShape fp8 = load_hf_model_config(write_config("fp8", text));
  EXPECT_EQ(attention_weight_bytes(fp8), 1);
  EXPECT_EQ(mlp_weight_bytes(fp8), 1);
  const LayerMatrices x = layer_matrices(fp8);
  EXPECT_DOUBLE_EQ(model_weight_bytes(fp8), 2.0 * static_cast<double>(fp8.params) -
                                                16.0 * (x.qkv + x.attn_out + x.dense_mlp));

  ModelShape m = *find_model_preset("Llama-3.1-8B");
  const double bf16 = model_weight_bytes(m);
  apply_weight_format(m, WeightFormat{"auto", "fp8"});
  // The layers' matrices at one byte; embeddings and LM head (2.1 GB) stay 16-bit.
  const LayerMatrices y = layer_matrices(m);
  EXPECT_DOUBLE_EQ(model_weight_bytes(m), bf16 - 32.0 * (y.qkv + y.attn_out + y.dense_mlp));
  EXPECT_NEAR(model_weight_bytes(m) / bf16, 0.565, 0.001);
  apply_weight_format(m, WeightFormat{"float32", ""});
  EXPECT_EQ(m.weight_bytes_per_param, 4);
  EXPECT_NE(invalid_argument_message([&] {
              apply_weight_format(m, WeightFormat{"int3", ""});
            }).find("int3"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              apply_weight_format(m, WeightFormat{"auto", "awq"});
            }).find("awq"),
            std::string::npos);
}

}  // namespace
}  // namespace llm
