// Golden logits from an independent implementation: tests/model/numpy_llama.py (NumPy, float64)
// reads a tiny random model written by write_safetensors_model (config.json + model.safetensors)
// and prints the logits at every position of fixed prompts; the CPU backend, running the weights
// load_model_weights reads back from the same folder, must match every one within 1e-4.
#include <gtest/gtest.h>

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

struct Golden {
  const char* name;
  ModelConfig config;
};

void PrintTo(const Golden& g, std::ostream* os) { *os << g.name; }

class GoldenLogits : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenLogits, MatchNumpyAtEveryPosition) {
  if (!numpy_available()) GTEST_SKIP() << kPython << " cannot import numpy (Debian python3-numpy)";
  const Golden& g = GetParam();
  const fs::path dir = fs::temp_directory_path() /
                       ("llm_golden_" + std::string(g.name) + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  write_safetensors_model(random_model_weights(g.config, 21, true), dir.string());
  auto w = std::make_shared<const ModelWeights>(load_model_weights(dir.string()));
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
