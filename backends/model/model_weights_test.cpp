#include "backends/model/model_weights.h"

#include <gtest/gtest.h>

#include <string>

namespace llm {
namespace {

ModelConfig small_config(bool tied, bool bias) {
  ModelConfig c;
  c.architecture = bias ? "qwen2" : "llama";
  c.vocab_size = 50;
  c.hidden_size = 16;
  c.intermediate_size = 24;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 4;
  c.tie_word_embeddings = tied;
  c.attention_bias = bias;
  return c;
}

std::string error_of(const ModelWeights& w) {
  try {
    check_weight_shapes(w, "test");
  } catch (const ModelFormatError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckWeightShapes, AcceptsWhatRandomWeightsBuild) {
  for (bool tied : {false, true}) {
    for (bool bias : {false, true}) {
      EXPECT_EQ(error_of(random_model_weights(small_config(tied, bias), 1, false)), "");
    }
  }
}

TEST(CheckWeightShapes, NamesTheTensorThatContradictsTheConfig) {
  ModelWeights w = random_model_weights(small_config(false, true), 1, false);
  w.layers[1].k_proj.pop_back();
  EXPECT_NE(error_of(w).find("model.layers.1.self_attn.k_proj.weight: has 127 values, the config "
                             "implies 128"),
            std::string::npos)
      << error_of(w);

  w = random_model_weights(small_config(false, false), 1, false);
  w.layers[0].q_bias.assign(16, 0.0f);  // a bias the config does not have
  EXPECT_NE(error_of(w).find("model.layers.0.self_attn.q_proj.bias"), std::string::npos);

  w = random_model_weights(small_config(true, false), 1, false);
  w.lm_head.assign(50 * 16, 0.0f);  // tied, yet an lm_head
  EXPECT_NE(error_of(w).find("lm_head.weight"), std::string::npos);

  w = random_model_weights(small_config(false, false), 1, false);
  w.layers.pop_back();
  EXPECT_NE(error_of(w).find("1 layers, the config says 2"), std::string::npos);
}

TEST(CheckAttentionShape, NamesWhatNoBackendCanRun) {
  struct Case {
    const char* name;
    void (*change)(ModelConfig&);
    const char* want;  // "" for accepted
  };
  const Case cases[] = {
      {"as built", [](ModelConfig&) {}, ""},
      {"no layers", [](ModelConfig& c) { c.num_hidden_layers = 0; },
       "a shape field is not positive"},
      {"no kv heads", [](ModelConfig& c) { c.num_key_value_heads = 0; },
       "a shape field is not positive"},
      {"odd head_dim", [](ModelConfig& c) { c.head_dim = 7; },
       "head_dim must be positive and even"},
      {"heads not a multiple", [](ModelConfig& c) { c.num_key_value_heads = 3; },
       "num_attention_heads is not a multiple of num_key_value_heads"},
  };
  for (const Case& k : cases) {
    ModelConfig c = small_config(false, false);
    k.change(c);
    std::string got;
    try {
      check_attention_shape(c, "x backend");
    } catch (const std::invalid_argument& e) {
      got = e.what();
    }
    EXPECT_EQ(got, *k.want ? std::string("x backend: unsupported model: ") + k.want : "") << k.name;
  }
}

}  // namespace
}  // namespace llm
