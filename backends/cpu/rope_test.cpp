// RoPE frequencies in the CPU backend: per-frequency factors divide the plain frequencies (Llama
// 3.1 scaling, however it was loaded), linear scaling divides them all; and a Llama 3.1-scaled
// model loaded from GGUF (rope_freqs.weight) and from safetensors (config.json's parameters)
// gives bit-identical logits that match the naive decoder and differ from unscaled RoPE.
#include "backends/cpu/rope.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "backends/cpu/cpu_test_util.h"
#include "backends/model/model_writer.h"
#include "backends/model/rope_factors.h"
#include "backends/model/testing/model_test_support.h"
#include "backends/testing/shared_testdata.h"

namespace llm {
namespace {

ModelConfig rope_config(int64_t head_dim) {
  ModelConfig c;
  c.head_dim = head_dim;
  c.rope_theta = 500000.0;
  return c;
}

TEST(RopeInvFreq, PlainLinearAndPerFrequencyFactors) {
  ModelConfig c = rope_config(16);
  const std::vector<double> plain = rope_inv_freq(c);
  ASSERT_EQ(plain.size(), 8u);
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(plain[i], 1.0 / std::pow(500000.0, 2.0 * static_cast<double>(i) / 16.0)) << i;
  }
  c.rope_freq_factors = {1, 1, 2, 2, 4, 4, 8, 8};
  std::vector<double> f = rope_inv_freq(c);
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i], plain[i] / c.rope_freq_factors[i]) << i;
  c.rope_scaling = {RopeScaling::Type::kLinear, 2.0, 1.0, 4.0, 0};  // both, as llama.cpp does
  f = rope_inv_freq(c);
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f[i], plain[i] / c.rope_freq_factors[i] / 2.0) << i;
  }
  c.rope_freq_factors.pop_back();
  EXPECT_THROW(rope_inv_freq(c), std::invalid_argument);
}

// A config built in code with llama3 parameters but no factors gets them derived.
TEST(RopeInvFreq, Llama3ParametersUseTheDerivedFactors) {
  ModelConfig c = rope_config(128);
  c.rope_scaling = {RopeScaling::Type::kLlama3, 8.0, 1.0, 4.0, 8192};
  const std::vector<double> plain = rope_inv_freq(rope_config(128));
  const std::vector<float> factors = llama3_rope_freq_factors(128, 500000.0, c.rope_scaling);
  const std::vector<double> f = rope_inv_freq(c);
  ASSERT_EQ(f.size(), 64u);
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i], plain[i] / factors[i]) << i;
  EXPECT_EQ(f[0], plain[0]);
  EXPECT_EQ(f[63], plain[63] / 8.0);
}

std::vector<std::vector<float>> logits_at_every_position(std::shared_ptr<const ModelWeights> w,
                                                         const std::vector<int32_t>& tokens) {
  std::vector<std::vector<float>> got;
  CpuBackend backend(std::move(w), cpu_testing::options_recording(&got, 16, 4));
  std::vector<int32_t> blocks(10);
  std::iota(blocks.begin(), blocks.end(), 2);
  cpu_testing::run_direct(backend, tokens, blocks, 1, 1);
  return got;
}

double worst_difference(const std::vector<float>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

TEST(CpuRope, Llama3ScaledGgufAndSafetensorsGiveBitIdenticalLogits) {
  const ModelConfig config = cpu_testing::tiny_llama3_scaled();
  const ModelWeights original = random_model_weights(config, 17, true);
  const std::string dir = testing::scratch_dir("cpu_llama3_rope");
  write_gguf_model(original, testing::tiny_vocab(static_cast<int>(config.vocab_size)),
                   dir + "/model.gguf");
  write_safetensors_model(original, dir);
  auto from_gguf = std::make_shared<const ModelWeights>(load_model_weights(dir + "/model.gguf"));
  auto from_st = std::make_shared<const ModelWeights>(load_model_weights(dir));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(from_gguf->config.rope_scaling.type, RopeScaling::Type::kNone);
  ASSERT_EQ(from_gguf->config.rope_freq_factors, from_st->config.rope_freq_factors);

  const std::vector<int32_t> tokens = cpu_testing::prompt(5, 40, config.vocab_size);
  const auto g = logits_at_every_position(from_gguf, tokens);
  const auto s = logits_at_every_position(from_st, tokens);
  ASSERT_EQ(g.size(), tokens.size());
  ASSERT_EQ(s.size(), tokens.size());
  for (size_t t = 0; t < tokens.size(); ++t) {
    ASSERT_EQ(g[t].size(), s[t].size());
    EXPECT_EQ(std::memcmp(g[t].data(), s[t].data(), g[t].size() * sizeof(float)), 0)
        << "position " << t;
  }

  // Both apply the scaling: they match the naive decoder with llama3 RoPE, not plain RoPE.
  const auto scaled = cpu_testing::naive_logits(original, tokens);
  ModelWeights unscaled = original;
  unscaled.config.rope_scaling = {};
  const auto plain = cpu_testing::naive_logits(unscaled, tokens);
  double worst_scaled = 0, worst_plain = 0;
  for (size_t t = 0; t < tokens.size(); ++t) {
    worst_scaled = std::max(worst_scaled, worst_difference(g[t], scaled[t]));
    worst_plain = std::max(worst_plain, worst_difference(g[t], plain[t]));
  }
  EXPECT_LT(worst_scaled, 1e-4);
  EXPECT_GT(worst_plain, 1e-2);
}

}  // namespace
}  // namespace llm
