// Golden logits from an independent implementation: tests/model/numpy_llama.py (NumPy, float64)
// reads a tiny random model written here as config.json + model.safetensors and prints the logits
// at every position of fixed prompts; the CPU backend must match every one within 1e-4.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/model/safetensors_writer.h"

namespace llm {
namespace {

namespace fs = std::filesystem;
constexpr const char* kPython = "/usr/bin/python3";

// Writes the weights under Hugging Face's tensor names, and a config.json, into dir.
void write_hf_checkpoint(const ModelWeights& w, const fs::path& dir) {
  const ModelConfig& c = w.config;
  fs::create_directories(dir);
  SafetensorsWriter st;
  const int64_t h = c.hidden_size, q = c.num_attention_heads * c.head_dim,
                kv = c.num_key_value_heads * c.head_dim, f = c.intermediate_size;
  st.add_f32("model.embed_tokens.weight", {c.vocab_size, h}, w.tok_embeddings);
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const LayerWeights& l = w.layers[i];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    st.add_f32(p + "input_layernorm.weight", {h}, l.attn_norm);
    st.add_f32(p + "self_attn.q_proj.weight", {q, h}, l.q_proj);
    st.add_f32(p + "self_attn.k_proj.weight", {kv, h}, l.k_proj);
    st.add_f32(p + "self_attn.v_proj.weight", {kv, h}, l.v_proj);
    st.add_f32(p + "self_attn.o_proj.weight", {h, q}, l.o_proj);
    if (c.attention_bias) {
      st.add_f32(p + "self_attn.q_proj.bias", {q}, l.q_bias);
      st.add_f32(p + "self_attn.k_proj.bias", {kv}, l.k_bias);
      st.add_f32(p + "self_attn.v_proj.bias", {kv}, l.v_bias);
    }
    st.add_f32(p + "post_attention_layernorm.weight", {h}, l.ffn_norm);
    st.add_f32(p + "mlp.gate_proj.weight", {f, h}, l.gate_proj);
    st.add_f32(p + "mlp.up_proj.weight", {f, h}, l.up_proj);
    st.add_f32(p + "mlp.down_proj.weight", {h, f}, l.down_proj);
  }
  st.add_f32("model.norm.weight", {h}, w.final_norm);
  if (!c.tie_word_embeddings) st.add_f32("lm_head.weight", {c.vocab_size, h}, w.lm_head);
  st.set_metadata("format", "pt");
  st.write((dir / "model.safetensors").string());

  nlohmann::json j = {
      {"architectures", {c.architecture == "qwen2" ? "Qwen2ForCausalLM" : "LlamaForCausalLM"}},
      {"model_type", c.architecture},
      {"vocab_size", c.vocab_size},
      {"hidden_size", c.hidden_size},
      {"intermediate_size", c.intermediate_size},
      {"num_hidden_layers", c.num_hidden_layers},
      {"num_attention_heads", c.num_attention_heads},
      {"num_key_value_heads", c.num_key_value_heads},
      {"head_dim", c.head_dim},
      {"rms_norm_eps", c.rms_norm_eps},
      {"rope_theta", c.rope_theta},
      {"max_position_embeddings", c.max_position_embeddings},
      {"tie_word_embeddings", c.tie_word_embeddings},
      {"attention_bias", c.attention_bias},
      {"hidden_act", "silu"},
      {"torch_dtype", "float32"},
  };
  const RopeScaling& s = c.rope_scaling;
  if (s.type == RopeScaling::Type::kLlama3) {
    j["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", s.factor},
                         {"low_freq_factor", s.low_freq_factor},
                         {"high_freq_factor", s.high_freq_factor},
                         {"original_max_position_embeddings", s.original_max_position_embeddings}};
  } else if (s.type == RopeScaling::Type::kLinear) {
    j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", s.factor}};
  }
  std::ofstream(dir / "config.json") << j.dump(2);
}

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  if (status != 0)
    throw std::runtime_error("command failed (" + std::to_string(status) + "): " + cmd);
  return out;
}

bool numpy_available() {
  return std::system((std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0;
}

struct Golden {
  const char* name;
  ModelConfig config;
};

void PrintTo(const Golden& g, std::ostream* os) { *os << g.name; }

class GoldenLogits : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenLogits, MatchNumpyAtEveryPosition) {
  if (!numpy_available()) GTEST_SKIP() << kPython << " cannot import numpy (Debian python3-numpy)";
  const Golden& g = GetParam();
  auto w = std::make_shared<const ModelWeights>(random_model_weights(g.config, 21, true));
  const fs::path dir = fs::temp_directory_path() /
                       ("llm_golden_" + std::string(g.name) + "_" + std::to_string(getpid()));
  write_hf_checkpoint(*w, dir);
  const std::vector<std::vector<int32_t>> prompts = {
      cpu_testing::prompt(1, 33, g.config.vocab_size),
      cpu_testing::prompt(2, 7, g.config.vocab_size),
      {0, 1, 2, static_cast<int32_t>(g.config.vocab_size - 1)}};
  std::string cmd =
      std::string(kPython) + " " + LLM_SOURCE_DIR + "/tests/model/numpy_llama.py " + dir.string();
  for (const auto& p : prompts) {
    cmd += " ";
    for (size_t i = 0; i < p.size(); ++i) cmd += (i ? "," : "") + std::to_string(p[i]);
  }
  const nlohmann::json golden = nlohmann::json::parse(run_command(cmd));
  fs::remove_all(dir);
  ASSERT_EQ(golden["logits"].size(), prompts.size());

  for (size_t pi = 0; pi < prompts.size(); ++pi) {
    const auto& tokens = prompts[pi];
    std::vector<std::vector<float>> got;
    CpuBackend backend(w, cpu_testing::options_recording(&got, 16, 4));
    std::vector<int32_t> blocks(10);
    std::iota(blocks.begin(), blocks.end(), 3);
    // Position by position after a 2-token prefill (logits at positions 1..T-1) ...
    cpu_testing::run_direct(backend, tokens, blocks, 2, 2);
    const auto& ref = golden["logits"][pi];
    ASSERT_EQ(ref.size(), tokens.size());
    ASSERT_EQ(got.size(), tokens.size() - 1);
    double worst = 0;
    for (size_t t = 1; t < tokens.size(); ++t) {
      const auto& row = ref[t];
      ASSERT_EQ(row.size(), static_cast<size_t>(g.config.vocab_size));
      for (size_t v = 0; v < row.size(); ++v) {
        worst = std::max(worst, std::abs(got[t - 1][v] - row[v].get<double>()));
      }
    }
    EXPECT_LT(worst, 1e-4) << g.name << " prompt " << pi;
    // ... and the first position alone: a one-token prompt.
    std::vector<std::vector<float>> first;
    CpuBackend one(w, cpu_testing::options_recording(&first, 16, 4));
    cpu_testing::run_direct(one, {tokens[0]}, blocks, 1, 1);
    ASSERT_EQ(first.size(), 1u);
    for (size_t v = 0; v < first[0].size(); ++v) {
      ASSERT_NEAR(first[0][v], ref[0][v].get<double>(), 1e-4) << g.name << " position 0";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, GoldenLogits,
                         ::testing::Values(Golden{"llama_gqa_untied", cpu_testing::tiny_llama()},
                                           Golden{"qwen2_bias_tied", cpu_testing::tiny_qwen2()},
                                           Golden{"llama3_rope_scaling",
                                                  cpu_testing::tiny_llama3_scaled()}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace llm
