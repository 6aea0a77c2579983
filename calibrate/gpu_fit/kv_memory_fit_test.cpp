// KV capacity as vLLM sizes it: the H100-SXM preset's memory model against the KV block counts
// vLLM logged for BLIS's H100 runs (../shared/gpu-truth/blis/trainval-exact-config.json), each
// run's error printed. Skipped, saying so, where ../shared is absent.
// Thread-safety: single-threaded tests.
#include "calibrate/gpu_fit/kv_memory_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "backends/sim/presets.h"

namespace llm {
namespace {

const std::string kTruth = LLM_SOURCE_DIR "/../shared/gpu-truth";

TEST(KvCapacity, MatchesTheBlockCountsVllmLogged) {
  if (!std::filesystem::is_directory(kTruth)) {
    GTEST_SKIP() << kTruth << " is absent: the KV block counts were not checked";
  }
  const GpuProfile& h100 = *find_gpu_preset("H100-SXM");
  const std::vector<KvBlockSample> samples = read_kv_block_samples(kTruth);
  ASSERT_GE(samples.size(), 8u);
  int fitted = 0;
  for (const KvBlockSample& s : samples) {
    const double predicted = predicted_kv_blocks(h100, s);
    const double error = predicted / static_cast<double>(s.logged_blocks) - 1;
    std::printf("%-80s logged %6lld predicted %6.0f error %+5.1f%%%s\n", s.source.c_str(),
                static_cast<long long>(s.logged_blocks), std::floor(predicted), 100 * error,
                s.fitted ? "" : " (not modelled: hybrid KV-cache manager)");
    if (!s.fitted) continue;
    ++fitted;
    EXPECT_LT(std::fabs(error), 0.015) << s.source;
  }
  EXPECT_GE(fitted, 7);
}

TEST(KvCapacity, FitRecoversPlantedConstants) {
  if (!std::filesystem::is_directory(kTruth)) {
    GTEST_SKIP() << kTruth << " is absent: the fit was not exercised";
  }
  // Block counts made by the model itself with known constants are fitted back to them.
  GpuProfile truth = *find_gpu_preset("H100-SXM");
  truth.memory = {1.2e9, 3e8, 30, 6};
  std::vector<KvBlockSample> samples = read_kv_block_samples(kTruth);
  for (KvBlockSample& s : samples) {
    s.logged_blocks = std::llround(predicted_kv_blocks(truth, s));
    s.fitted = true;
  }
  GpuProfile fitted = truth;
  fitted.memory = {1e9, 1e8, 50, 4};
  const std::vector<double> errors = fit_kv_memory(fitted, samples);
  for (double e : errors) EXPECT_LT(std::fabs(e), 2e-3);
  EXPECT_NEAR(fitted.memory.reserved_bytes / 1.2e9, 1, 0.05);
}

}  // namespace
}  // namespace llm
