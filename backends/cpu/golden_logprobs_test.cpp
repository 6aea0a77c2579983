// Log-probabilities against the independent NumPy reference: tests/model/numpy_llama.py
// --logprobs prints the float64 log-softmax of the logits at every position of a tiny random
// model; the CPU backend's prompt logprobs (gathered over prefill chunks) and its sampled token's
// logprobs, with their top-k lists and ranks, must match within 1e-4.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_test_util.h"
#include "backends/cpu/numpy_reference_test_util.h"
#include "backends/model/model_writer.h"

namespace llm {
namespace {

namespace fs = std::filesystem;
using cpu_testing::kPython;
using cpu_testing::numpy_available;
using cpu_testing::run_command;
constexpr int32_t kTop = 5;

// Checks one position against the reference row (the log-softmax that predicts it).
void expect_matches(const PositionLogprobs& got, const nlohmann::json& row, int32_t token,
                    const std::string& where) {
  std::vector<double> ref = row.get<std::vector<double>>();
  EXPECT_EQ(got.token, token) << where;
  EXPECT_NEAR(got.logprob, ref[static_cast<size_t>(token)], 1e-4) << where;
  const int64_t rank = std::count_if(
      ref.begin(), ref.end(), [&](double v) { return v >= ref[static_cast<size_t>(token)]; });
  EXPECT_EQ(got.rank, rank) << where;
  std::vector<int32_t> order(ref.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return ref[static_cast<size_t>(a)] > ref[static_cast<size_t>(b)];
  });
  ASSERT_EQ(got.top.size(), static_cast<size_t>(kTop)) << where;
  for (size_t i = 0; i < got.top.size(); ++i) {
    EXPECT_EQ(got.top[i].token, order[i]) << where << " top " << i;
    EXPECT_NEAR(got.top[i].logprob, ref[static_cast<size_t>(order[i])], 1e-4) << where;
  }
}

TEST(GoldenLogprobs, PromptAndSampledLogprobsMatchNumpy) {
  if (!numpy_available()) GTEST_SKIP() << kPython << " cannot import numpy (Debian python3-numpy)";
  const ModelConfig config = cpu_testing::tiny_llama();
  const fs::path dir = fs::temp_directory_path() / ("llm_golden_lp_" + std::to_string(getpid()));
  fs::create_directories(dir);
  write_safetensors_model(random_model_weights(config, 21, true), dir.string());
  auto w = std::make_shared<const ModelWeights>(load_model_weights(dir.string()));
  const std::vector<int32_t> tokens = cpu_testing::prompt(5, 11, config.vocab_size);
  std::string cmd = std::string(kPython) + " " + LLM_SOURCE_DIR +
                    "/tests/model/numpy_llama.py --logprobs " + dir.string() + " ";
  for (size_t i = 0; i < tokens.size(); ++i) cmd += (i ? "," : "") + std::to_string(tokens[i]);
  const nlohmann::json golden = nlohmann::json::parse(run_command(cmd));
  fs::remove_all(dir);
  const nlohmann::json& ref = golden["logprobs"][0];
  ASSERT_EQ(ref.size(), tokens.size());

  CpuBackendOptions options;
  options.num_blocks = 16;
  options.block_size = 4;
  CpuBackend backend(w, options);
  Request r;
  r.external_id = "golden";
  r.prompt_tokens = tokens;
  r.prompt_len = static_cast<int64_t>(tokens.size());
  r.params.temperature = 0.8;  // logprobs are of the raw logits, whatever the sampling
  r.params.logprobs = kTop;
  r.params.prompt_logprobs = kTop;
  r.block_ids = {3, 4, 5, 6};
  std::vector<PositionLogprobs> prompt;
  std::optional<PositionLogprobs> sampled;
  int32_t sampled_token = -1;
  std::vector<int32_t> out;
  const int64_t T = r.prompt_len;
  for (int64_t done = 0; done < T; done += 4) {  // prefill chunks of 4, 4 and 3 tokens
    SchedulerOutput batch;
    ScheduledSeq s;
    s.request = &r;
    s.num_computed_before = done;
    s.num_new_tokens = std::min<int64_t>(4, T - done);
    s.samples = done + s.num_new_tokens == T;
    batch.seqs.push_back(s);
    backend.execute(batch, out);
    ASSERT_EQ(backend.logprobs().seqs.size(), 1u);
    const SeqLogprobs& e = backend.logprobs().seqs[0];
    EXPECT_EQ(e.first_prompt_position, done + 1);
    prompt.insert(prompt.end(), e.prompt.begin(), e.prompt.end());
    if (e.sampled) {
      sampled = e.sampled;
      sampled_token = out[0];
    }
  }
  ASSERT_EQ(prompt.size(), tokens.size() - 1);
  for (size_t p = 1; p < tokens.size(); ++p) {
    expect_matches(prompt[p - 1], ref[p - 1], tokens[p], "position " + std::to_string(p));
  }
  ASSERT_TRUE(sampled.has_value());
  expect_matches(*sampled, ref[tokens.size() - 1], sampled_token, "sampled");
}

// The prompt logprobs of one request, prefilled in chunks of `chunk` tokens.
std::vector<PositionLogprobs> prompt_logprobs(CpuBackend& backend,
                                              const std::vector<int32_t>& tokens, int64_t chunk) {
  Request r;
  r.external_id = "chunked";
  r.prompt_tokens = tokens;
  r.prompt_len = static_cast<int64_t>(tokens.size());
  r.params.temperature = 0;
  r.params.prompt_logprobs = 3;
  for (int32_t b = 0; b < 40; ++b) r.block_ids.push_back(b);
  std::vector<PositionLogprobs> got;
  std::vector<int32_t> out;
  for (int64_t done = 0; done < r.prompt_len; done += chunk) {
    SchedulerOutput batch;
    ScheduledSeq s;
    s.request = &r;
    s.num_computed_before = done;
    s.num_new_tokens = std::min(chunk, r.prompt_len - done);
    s.samples = done + s.num_new_tokens == r.prompt_len;
    batch.seqs.push_back(s);
    backend.execute(batch, out);
    for (const SeqLogprobs& e : backend.logprobs().seqs) {
      got.insert(got.end(), e.prompt.begin(), e.prompt.end());
    }
  }
  return got;
}

TEST(GoldenLogprobs, ALongPromptGivesTheSameValuesInOneStepAsInChunks) {
  // 150 prompt rows in one step take three LM-head passes; chunks of 7 take one each.
  const ModelConfig config = cpu_testing::tiny_llama();
  auto w = std::make_shared<const ModelWeights>(random_model_weights(config, 21, true));
  CpuBackendOptions options;
  options.num_blocks = 40;
  options.block_size = 4;
  const std::vector<int32_t> tokens = cpu_testing::prompt(9, 151, config.vocab_size);
  CpuBackend whole(w, options), chunked(w, options);
  const std::vector<PositionLogprobs> a = prompt_logprobs(whole, tokens, 151);
  const std::vector<PositionLogprobs> b = prompt_logprobs(chunked, tokens, 7);
  ASSERT_EQ(a.size(), 150u);
  ASSERT_EQ(b.size(), 150u);
  for (size_t p = 0; p < a.size(); ++p) {
    EXPECT_EQ(a[p].token, tokens[p + 1]);
    EXPECT_EQ(a[p].token, b[p].token);
    EXPECT_EQ(a[p].logprob, b[p].logprob) << "position " << p + 1;  // bit-identical
    EXPECT_EQ(a[p].rank, b[p].rank);
    ASSERT_EQ(a[p].top.size(), 3u);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(a[p].top[k].token, b[p].top[k].token);
  }
}

TEST(GoldenLogprobs, AStepWhereNobodyAsksComputesNone) {
  const ModelConfig config = cpu_testing::tiny_llama();
  auto w = std::make_shared<const ModelWeights>(random_model_weights(config, 21, true));
  std::vector<std::vector<float>> logits;
  CpuBackend backend(w, cpu_testing::options_recording(&logits, 16, 4));
  cpu_testing::run_direct(backend, cpu_testing::prompt(5, 11, config.vocab_size), {3, 4, 5, 6}, 4,
                          11);
  EXPECT_TRUE(backend.logprobs().empty());
  EXPECT_EQ(logits.size(), 1u);
}

}  // namespace
}  // namespace llm
