#include "backends/cpu/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace llm {
namespace {

SamplingParams params(double temperature, int32_t top_k = 0, double top_p = 1.0,
                      uint64_t seed = 0) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = top_k;
  p.top_p = top_p;
  p.seed = seed;
  return p;
}

std::vector<int32_t> kept(const std::vector<TokenProb>& d) {
  std::vector<int32_t> t;
  for (const TokenProb& p : d) t.push_back(p.token);
  return t;
}

TEST(Sampler, GreedyPicksTheArgmaxAndTheLowestIdOnTies) {
  struct Row {
    std::vector<float> logits;
    double temperature;
    int32_t expected;
  };
  const Row rows[] = {
      {{0.1f, 3.0f, -1.0f, 2.9f}, 0.0, 1},
      {{5.0f, 5.0f, 1.0f}, 0.0, 0},
      {{-3.0f, -2.0f, -2.5f}, 0.0, 1},
      {{1.0f, 2.0f, 7.0f}, 0.5e-5, 2},  // below vLLM's 1e-5: still greedy
  };
  for (const Row& r : rows) {
    for (uint64_t seed : {0, 1, 99}) {
      EXPECT_EQ(sample_token(r.logits, params(r.temperature), seed), r.expected);
    }
  }
}

TEST(Sampler, TopKOneIsGreedyAtAnyTemperature) {
  const std::vector<float> logits = {0.5f, 1.5f, 1.4f, -2.0f, 1.49f};
  for (uint64_t seed = 0; seed < 50; ++seed) {
    EXPECT_EQ(sample_token(logits, params(2.0, 1), seed), 1);
  }
}

TEST(Sampler, TopKKeepsTheKMostProbable) {
  const std::vector<float> logits = {0.5f, 1.5f, 1.4f, -2.0f, 1.49f};
  const auto d = sampling_distribution(logits, params(1.0, 3));
  EXPECT_EQ(kept(d), (std::vector<int32_t>{1, 2, 4}));
  double sum = 0;
  for (const TokenProb& p : d) sum += p.prob;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

TEST(Sampler, TopPCutSetIsExact) {
  // Probabilities 0.5, 0.25, 0.125, 0.125 (logits are their logs).
  const std::vector<float> logits = {std::log(0.125f), std::log(0.5f), std::log(0.125f),
                                     std::log(0.25f)};
  struct Row {
    double top_p;
    std::vector<int32_t> kept;
  };
  const Row rows[] = {
      {0.3, {1}},          // 0.5 alone reaches 0.3
      {0.499, {1}},        // just below the first boundary
      {0.501, {1, 3}},     // the mass before the 0.25 token (0.5) is < 0.501: it stays
      {0.749, {1, 3}},     // 0.75 reaches 0.749
      {0.751, {0, 1, 3}},  // 0.75 < 0.751 keeps one 0.125 token, the lower id; 0.875 stops
      {0.99, {0, 1, 2, 3}},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(kept(sampling_distribution(logits, params(1.0, 0, r.top_p))), r.kept) << r.top_p;
  }
  const auto d = sampling_distribution(logits, params(1.0, 0, 0.6));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NEAR(d[0].prob, 2.0 / 3.0, 1e-6);  // token 1: 0.5 / 0.75
  EXPECT_NEAR(d[1].prob, 1.0 / 3.0, 1e-6);
}

TEST(Sampler, TopKThenTopP) {
  const std::vector<float> logits = {std::log(0.4f), std::log(0.3f), std::log(0.2f),
                                     std::log(0.1f)};
  // top-k 2 leaves 4/7 and 3/7; top-p 0.5 then keeps only token 0.
  EXPECT_EQ(kept(sampling_distribution(logits, params(1.0, 2, 0.5))), (std::vector<int32_t>{0}));
  EXPECT_EQ(kept(sampling_distribution(logits, params(1.0, 2, 0.6))), (std::vector<int32_t>{0, 1}));
}

TEST(Sampler, SameSeedSameTokenAndSeedsDiffer) {
  std::vector<float> logits(50);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = 0.01f * static_cast<float>(i);
  const SamplingParams p = params(1.0, 0, 1.0, 42);
  std::vector<int32_t> a, b;
  for (int64_t n = 0; n < 40; ++n) {
    a.push_back(sample_token(logits, p, sampling_seed(p, n)));
    b.push_back(sample_token(logits, p, sampling_seed(p, n)));
  }
  EXPECT_EQ(a, b);
  std::vector<int32_t> c;
  const SamplingParams q = params(1.0, 0, 1.0, 43);
  for (int64_t n = 0; n < 40; ++n) c.push_back(sample_token(logits, q, sampling_seed(q, n)));
  EXPECT_NE(a, c);
}

TEST(Sampler, DrawsFollowTheTemperedSoftmax) {
  const std::vector<float> logits = {1.0f, 2.0f, 0.0f, 1.5f, -1.0f};
  const double t = 0.7;
  std::vector<double> p(logits.size());
  double z = 0;
  for (size_t i = 0; i < p.size(); ++i) z += (p[i] = std::exp(logits[i] / t));
  for (double& v : p) v /= z;
  const int kDraws = 40000;
  std::vector<int> counts(logits.size(), 0);
  const SamplingParams sp = params(t, 0, 1.0, 7);
  for (int i = 0; i < kDraws; ++i) ++counts[sample_token(logits, sp, sampling_seed(sp, i))];
  for (size_t i = 0; i < p.size(); ++i) {
    const double sd = std::sqrt(p[i] * (1 - p[i]) / kDraws);
    EXPECT_NEAR(counts[i] / double(kDraws), p[i], 5 * sd + 1e-3) << "token " << i;
  }
}

// vLLM's penalties: repetition divides a seen token's positive logit (multiplies a negative one),
// over the prompt and the output; frequency subtracts per output occurrence, presence once.
TEST(Sampler, PenaltiesFollowVllmsFormulas) {
  const std::vector<float> raw = {2.0f, -1.0f, 0.5f, 3.0f, 1.0f, 0.0f};
  const std::vector<int32_t> prompt = {0, 1, 0};
  const std::vector<int32_t> output = {3, 2, 3, 3};
  SamplingParams p = params(1.0);
  std::vector<float> l = raw;
  EXPECT_FALSE(apply_penalties(l, p, prompt, output));  // all neutral
  EXPECT_EQ(l, raw);
  p.repetition_penalty = 2.0;
  EXPECT_TRUE(apply_penalties(l, p, prompt, output));
  EXPECT_EQ(l, (std::vector<float>{1.0f, -2.0f, 0.25f, 1.5f, 1.0f, 0.0f}));
  p.repetition_penalty = 1.0;
  p.frequency_penalty = 0.5;
  p.presence_penalty = 0.25;
  l = raw;
  EXPECT_TRUE(apply_penalties(l, p, prompt, output));
  // only output tokens: 3 three times, 2 once; the prompt's 0 and 1 untouched
  EXPECT_EQ(
      l, (std::vector<float>{2.0f, -1.0f, 0.5f - 0.5f - 0.25f, 3.0f - 1.5f - 0.25f, 1.0f, 0.0f}));
  p.repetition_penalty = 3.0;  // both: repetition first
  l = raw;
  apply_penalties(l, p, prompt, output);
  EXPECT_EQ(l[3], 3.0f * (1.0f / 3.0f) - 1.5f - 0.25f);
  EXPECT_EQ(l[1], -3.0f);
  // greedy decoding follows the penalised logits: 3 was the argmax, 0 is now
  p = params(0.0);
  p.frequency_penalty = 1.0;
  l = raw;
  apply_penalties(l, p, prompt, output);
  EXPECT_EQ(sample_token(raw, p, 0), 3);
  EXPECT_EQ(sample_token(l, p, 0), 0);
}

TEST(Sampler, OnlyTheAllowedTokensCanBeDrawn) {
  const std::vector<float> raw = {2.0f, -1.0f, 0.5f, 3.0f, 1.0f};
  SamplingParams p = params(0.0);
  p.allowed_token_ids = {1, 4};
  std::vector<float> l = raw;
  keep_allowed_tokens(l, p);
  EXPECT_EQ(l[1], raw[1]);
  EXPECT_EQ(l[4], raw[4]);
  for (size_t i : {0u, 2u, 3u}) EXPECT_TRUE(std::isinf(l[i]) && l[i] < 0) << i;
  EXPECT_EQ(sample_token(l, p, 0), 4);
  p = params(3.0, 0, 1.0, 9);
  p.allowed_token_ids = {1, 4};
  l = raw;
  keep_allowed_tokens(l, p);
  std::vector<int> counts(raw.size(), 0);
  for (int64_t i = 0; i < 500; ++i) ++counts[sample_token(l, p, sampling_seed(p, i))];
  EXPECT_EQ(counts[0] + counts[2] + counts[3], 0);
  EXPECT_GT(counts[1] * counts[4], 0);
  EXPECT_TRUE(adjusts_logits(p, 0));
}

TEST(Sampler, LogitBiasAddsToTheListedTokens) {
  const std::vector<float> raw = {2.0f, -1.0f, 0.5f, 3.0f};
  SamplingParams p = params(0.0);
  p.logit_bias = {{1, 5.0f}, {3, -100.0f}};
  std::vector<float> l = raw;
  add_logit_bias(l, p);
  EXPECT_EQ(l, (std::vector<float>{2.0f, 4.0f, 0.5f, -97.0f}));
  EXPECT_EQ(sample_token(l, p, 0), 1);
  EXPECT_TRUE(adjusts_logits(p, 0));
  EXPECT_FALSE(adjusts_logits(params(0.0), 0));
}

// vLLM's min_p: after temperature, a token less probable than min_p times the likeliest is out.
TEST(Sampler, MinPDropsTheUnlikelyBeforeTopK) {
  const std::vector<float> logits = {0.0f, std::log(0.5f), std::log(0.09f), std::log(0.2f)};
  SamplingParams p = params(1.0);
  p.min_p = 0.1;  // weights 1, 0.5, 0.09, 0.2: 0.09 < 0.1
  EXPECT_EQ(kept(sampling_distribution(logits, p)), (std::vector<int32_t>{0, 1, 3}));
  p.temperature = 2.0;  // weights 1, 0.71, 0.3, 0.45: all stay
  EXPECT_EQ(kept(sampling_distribution(logits, p)), (std::vector<int32_t>{0, 1, 2, 3}));
  p.temperature = 1.0;
  p.min_p = 0.6;
  p.top_k = 2;  // min-p leaves only 0; top-k of what is left
  EXPECT_EQ(kept(sampling_distribution(logits, p)), (std::vector<int32_t>{0}));
  double sum = 0;
  p.min_p = 0.15;
  p.top_k = 0;
  for (const TokenProb& t : sampling_distribution(logits, p)) sum += t.prob;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

// vLLM's min_tokens: stop tokens (stop ids, and EOS unless ignore_eos) cannot be drawn before the
// sequence has min_tokens tokens; from then on the logits are left as they are.
TEST(Sampler, StopTokensAreHeldBackUntilMinTokens) {
  const std::vector<float> raw = {0.1f, 3.0f, 2.5f, 2.9f, -1.0f};  // EOS is 1, stop id 3
  const std::vector<int32_t> eos = {1};
  SamplingParams p = params(0.0);
  p.stop_token_ids = {3};
  p.min_tokens = 2;
  std::vector<float> l = raw;
  EXPECT_TRUE(hold_back_stop_tokens(l, p, eos, 1));
  EXPECT_EQ(sample_token(l, p, 0), 2);  // greedy past EOS and the stop id
  EXPECT_TRUE(std::isinf(l[1]) && std::isinf(l[3]) && l[1] < 0 && l[3] < 0);
  EXPECT_EQ(l[0], raw[0]);
  EXPECT_EQ(l[2], raw[2]);
  EXPECT_EQ(l[4], raw[4]);
  l = raw;
  EXPECT_FALSE(hold_back_stop_tokens(l, p, eos, 2));  // it has min_tokens: untouched
  EXPECT_EQ(l, raw);
  p.ignore_eos = true;  // EOS is not a stop token then (vLLM leaves it out of the mask)
  EXPECT_TRUE(hold_back_stop_tokens(l, p, eos, 0));
  EXPECT_EQ(sample_token(l, p, 0), 1);
  // Drawn at a high temperature, never a held-back token.
  p = params(5.0, 0, 1.0, 3);
  p.stop_token_ids = {3};
  p.min_tokens = 1;
  l = raw;
  ASSERT_TRUE(hold_back_stop_tokens(l, p, eos, 0));
  std::vector<int> counts(raw.size(), 0);
  for (int64_t i = 0; i < 2000; ++i) ++counts[sample_token(l, p, sampling_seed(p, i))];
  EXPECT_EQ(counts[1], 0);
  EXPECT_EQ(counts[3], 0);
  EXPECT_GT(counts[0] * counts[2] * counts[4], 0);
}

}  // namespace
}  // namespace llm
