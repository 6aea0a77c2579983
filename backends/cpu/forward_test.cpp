// The CPU backend's forward pass against the naive double-precision decoder in cpu_test_util.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/matmul.h"
#include "backends/cpu/packed_model.h"
#include "backends/cpu/sampler.h"
#include "backends/model/model_weights.h"
#include "core/engine_core.h"

namespace llm {
namespace {

using cpu_testing::naive_logits;
using cpu_testing::options_recording;
using cpu_testing::run_direct;

struct ForwardCase {
  const char* name;
  ModelConfig config;
};

std::vector<ForwardCase> cases() {
  ModelConfig linear = cpu_testing::tiny_llama();
  linear.rope_scaling.type = RopeScaling::Type::kLinear;
  linear.rope_scaling.factor = 4.0;
  return {{"llama_gqa_untied", cpu_testing::tiny_llama()},
          {"qwen2_bias_tied", cpu_testing::tiny_qwen2()},
          {"llama3_rope_scaling", cpu_testing::tiny_llama3_scaled()},
          {"linear_rope_scaling", linear}};
}

std::vector<int32_t> iota_blocks(int n) {
  std::vector<int32_t> b(static_cast<size_t>(n));
  std::iota(b.begin(), b.end(), 1);
  return b;
}

void expect_close(const std::vector<float>& got, const std::vector<double>& ref,
                  const std::string& what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::abs(got[i] - ref[i]));
  EXPECT_LT(worst, 1e-4) << what;
}

class ForwardTest : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void TearDown() override { force_simd_level(SimdLevel::kAvx512); }
};

TEST_P(ForwardTest, MatchesNaiveDecoderAtEveryPosition) {
  force_simd_level(GetParam());
  if (simd_level() != GetParam()) GTEST_SKIP() << "this CPU lacks " << simd_name(GetParam());
  for (const ForwardCase& c : cases()) {
    auto w = std::make_shared<const ModelWeights>(random_model_weights(c.config, 11, true));
    const auto tokens = cpu_testing::prompt(3, 40, c.config.vocab_size);
    const auto ref = naive_logits(*w, tokens);
    // Position by position: a one-token prefill then decode steps.
    std::vector<std::vector<float>> got;
    CpuBackend backend(w, options_recording(&got, 16, 4));
    run_direct(backend, tokens, iota_blocks(10), 1, 1);
    ASSERT_EQ(got.size(), tokens.size()) << c.name;
    for (size_t t = 0; t < tokens.size(); ++t) {
      expect_close(got[t], ref[t], std::string(c.name) + " position " + std::to_string(t));
    }
    // One-shot prefill of the whole prompt: the last position's logits.
    std::vector<std::vector<float>> once;
    CpuBackend one_shot(w, options_recording(&once, 16, 4));
    run_direct(one_shot, tokens, iota_blocks(10), 40, 40);
    ASSERT_EQ(once.size(), 1u);
    expect_close(once[0], ref.back(), std::string(c.name) + " one-shot");
  }
}

INSTANTIATE_TEST_SUITE_P(Simd, ForwardTest,
                         ::testing::Values(SimdLevel::kPortable, SimdLevel::kAvx2Fma,
                                           SimdLevel::kAvx512),
                         [](const auto& info) { return simd_name(info.param); });

TEST(CpuBackend, RejectsRequestsWithoutTheTokensItNeeds) {
  auto w = std::make_shared<const ModelWeights>(
      random_model_weights(cpu_testing::tiny_llama(), 1, true));
  CpuBackendOptions o;
  o.num_blocks = 8;
  o.block_size = 4;
  CpuBackend backend(w, o);
  Request r;
  r.external_id = "x";
  r.prompt_len = 6;  // a length only, as the simulator's requests have
  r.block_ids = {1, 2};
  SchedulerOutput batch;
  batch.seqs.push_back({&r, 0, 6, true});
  std::vector<int32_t> sampled;
  EXPECT_THROW(backend.execute(batch, sampled), std::invalid_argument);
  r.prompt_tokens = {1, 2, 3, 4, 5, 6};
  r.num_output_tokens = 2;  // outputs not kept: position 6 is unknown
  r.last_output_token = 9;
  batch.seqs[0] = {&r, 6, 2, true};
  r.block_ids = {1, 2};
  EXPECT_THROW(backend.execute(batch, sampled), std::invalid_argument);
  batch.seqs[0] = {&r, 0, 6, false};
  r.block_ids = {1};  // too few blocks for 6 tokens
  EXPECT_THROW(backend.execute(batch, sampled), std::invalid_argument);
  r.block_ids = {1, 8};  // outside the cache
  EXPECT_THROW(backend.execute(batch, sampled), std::invalid_argument);
  r.block_ids = {-1, 2};
  EXPECT_THROW(backend.execute(batch, sampled), std::invalid_argument);
  r.block_ids = {1, 2, 99};  // the third block is not read by this step: checked when it is
  EXPECT_NO_THROW(backend.execute(batch, sampled));
  batch.seqs[0] = {&r, 6, 3, false};  // positions 6..8 reach it
  r.prompt_tokens = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  r.prompt_len = 9;
  EXPECT_THROW(backend.execute(batch, sampled), std::invalid_argument);
  r.prompt_tokens = {1, 2, 3, 4, 5, 6};
  r.prompt_len = 6;
  batch.seqs[0] = {&r, 0, 6, false};
  r.block_ids = {1, 2};
  EXPECT_NO_THROW(backend.execute(batch, sampled));
  EXPECT_EQ(sampled, std::vector<int32_t>{-1});
  // Without kept outputs, a decode step may still use the latest output token.
  r.num_output_tokens = 1;
  batch.seqs[0] = {&r, 6, 1, true};
  EXPECT_NO_THROW(backend.execute(batch, sampled));
  EXPECT_GE(sampled[0], 0);
}

TEST(CpuBackend, APackedModelWithTheRowMajorMatricesDroppedGivesTheSameLogits) {
  for (const ForwardCase& c : cases()) {
    const ModelWeights full = random_model_weights(c.config, 5, true);
    const auto tokens = cpu_testing::prompt(7, 24, c.config.vocab_size);
    std::vector<std::vector<float>> want, got;
    CpuBackend own(std::make_shared<const ModelWeights>(full), options_recording(&want, 16, 4));
    run_direct(own, tokens, iota_blocks(10), 5, 24);
    ModelWeights dropped = full;
    CpuBackendOptions o = options_recording(&got, 16, 4);
    o.packed = std::make_shared<const PackedModel>(pack_model(dropped, nullptr));
    drop_packed_matrices(dropped);
    EXPECT_TRUE(dropped.layers[0].q_proj.empty() && dropped.layers[0].down_proj.empty()) << c.name;
    EXPECT_EQ(dropped.tok_embeddings, full.tok_embeddings) << c.name;
    CpuBackend shared(std::make_shared<const ModelWeights>(std::move(dropped)), o);
    run_direct(shared, tokens, iota_blocks(10), 5, 24);
    EXPECT_EQ(got, want) << c.name;
  }
}

TEST(CpuBackend, RefusesAPackedModelOfOtherShapes) {
  const ModelConfig c = cpu_testing::tiny_llama();
  ModelConfig wider = c;
  wider.intermediate_size += 16;
  CpuBackendOptions o;
  o.num_blocks = 4;
  o.packed = std::make_shared<const PackedModel>(
      pack_model(random_model_weights(wider, 1, false), nullptr));
  try {
    CpuBackend backend(std::make_shared<const ModelWeights>(random_model_weights(c, 1, false)), o);
    FAIL() << "accepted another model's packed matrices";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("layer 0 gate_proj"), std::string::npos) << e.what();
  }
}

TEST(CpuBackend, EosComesFromTheConfig) {
  ModelConfig c = cpu_testing::tiny_llama();
  c.eos_token_ids = {7, 9};
  CpuBackendOptions o;
  o.num_blocks = 2;
  CpuBackend backend(std::make_shared<const ModelWeights>(random_model_weights(c, 1, false)), o);
  EXPECT_EQ(backend.eos_token_id(), 7);
}

// What one request generated on the tiny model through the engine.
struct Generated final : EngineObserver {
  void on_finished(const Request& r) override {
    out = r.output_tokens;
    reason = r.finish_reason;
  }
  std::vector<int32_t> out;
  FinishReason reason = FinishReason::kNone;
};

// Greedy decoding of 12 tokens (EOS ignored: the random model's is not what is tested) with
// `params` on top; `on_logits` sees each row's raw logits.
Generated generate_greedy(
    const SamplingParams& params,
    std::function<void(const Request&, std::span<const float>)> on_logits = nullptr) {
  static const auto weights = std::make_shared<const ModelWeights>(
      random_model_weights(cpu_testing::tiny_llama(), 3, true));
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 64;
  config.max_num_batched_tokens = 256;
  config.max_model_len = 128;
  CpuBackendOptions o;
  o.num_blocks = config.num_gpu_blocks;
  o.block_size = config.block_size;
  o.on_logits = std::move(on_logits);
  CpuBackend backend(weights, o);
  SimClock clock;
  Generated seen;
  EngineCore engine(config, backend, clock, &seen);
  auto r = std::make_unique<Request>();
  r->prompt_tokens = cpu_testing::prompt(4, 12, 300);
  r->keep_output_tokens = true;
  r->params = params;
  r->params.max_tokens = 12;
  r->params.temperature = 0;
  r->params.ignore_eos = true;
  engine.add_request(std::move(r));
  while (engine.step()) {
  }
  return seen;
}

// vLLM's min_tokens on the real sampler: among the first min_tokens tokens a stop token id (and
// the model's EOS) cannot be drawn, so greedy decoding takes the next best token there; the
// tokens before it are the same, and without min_tokens that id stops the sequence.
TEST(CpuBackend, MinTokensHoldsStopTokensOutOfTheDraw) {
  using Tokens = Generated;
  auto generate = [](std::vector<int32_t> stop_ids, int64_t min_tokens) {
    SamplingParams p;
    p.stop_token_ids = std::move(stop_ids);
    p.min_tokens = min_tokens;
    return generate_greedy(p);
  };
  const Tokens free = generate({}, 0);
  ASSERT_EQ(free.out.size(), 12u);
  // The first output index whose token has not come before it.
  size_t k = 1;
  while (k < free.out.size() &&
         std::find(free.out.begin(), free.out.begin() + static_cast<ptrdiff_t>(k), free.out[k]) !=
             free.out.begin() + static_cast<ptrdiff_t>(k)) {
    ++k;
  }
  ASSERT_LT(k, free.out.size());
  const int32_t stop = free.out[k];
  const Tokens stopped = generate({stop}, 0);
  EXPECT_EQ(stopped.reason, FinishReason::kStop);
  EXPECT_EQ(stopped.out.size(), k + 1);
  const Tokens held = generate({stop}, static_cast<int64_t>(k) + 1);
  ASSERT_GT(held.out.size(), k + 1);
  EXPECT_TRUE(
      std::equal(held.out.begin(), held.out.begin() + static_cast<ptrdiff_t>(k), free.out.begin()));
  for (size_t i = 0; i <= k; ++i) EXPECT_NE(held.out[i], stop) << "output " << i;
}

// The penalties reach the draw: each greedy token is the argmax of its raw logits penalised by
// the prompt and the tokens before it, and they change what a greedy run generates (penalties
// below neutral reward repeats, which this model's free run has none of).
TEST(CpuBackend, PenaltiesShapeEachGreedyToken) {
  const std::vector<int32_t> free = generate_greedy(SamplingParams{}).out;
  SamplingParams p;
  p.repetition_penalty = 0.5;
  p.frequency_penalty = -1.0;
  p.presence_penalty = -1.0;
  p.logit_bias = {{free[0], -5.0f}};  // not the free run's first token, unless it is far ahead
  std::vector<int32_t> expected;
  const Generated g = generate_greedy(p, [&](const Request& r, std::span<const float> raw) {
    std::vector<float> l(raw.begin(), raw.end());
    add_logit_bias(l, r.params);  // vLLM's order: the bias, then the penalties
    apply_penalties(l, r.params, r.prompt_tokens, r.output_tokens);
    expected.push_back(argmax_token(l));
  });
  ASSERT_EQ(g.out.size(), 12u);
  EXPECT_EQ(g.out, expected);
  EXPECT_NE(g.out, free);
  // A bias of 100 makes a token the greedy choice every step.
  SamplingParams forced;
  forced.logit_bias = {{5, 100.0f}};
  EXPECT_EQ(generate_greedy(forced).out, std::vector<int32_t>(12, 5));
}

}  // namespace
}  // namespace llm
