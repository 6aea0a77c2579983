// vllm:cache_config_info's labels: vLLM's capacity formulas and Python's str() of each setting.
#include "core/cache_config_info.h"

#include <gtest/gtest.h>

#include <map>

namespace llm {
namespace {

std::map<std::string, std::string> labels_of(const CacheConfigInfo& info) {
  std::map<std::string, std::string> m;
  for (const auto& [name, value] : cache_config_labels(info, 1)) m[name] = value;
  return m;
}

TEST(CacheConfigInfo, CapacityIsVllmsWholeBlocksPerMaxLengthRequest) {
  struct Case {
    int64_t block_size, num_gpu_blocks, max_model_len;
    const char* concurrency;
    const char* size_tokens;
  };
  const Case cases[] = {
      {16, 2048, 4096, "8.0", "32768"},               // 256 blocks per request
      {16, 100, 1000, "1.5873015873015872", "1587"},  // ceil(1000 / 16) = 63 blocks
      {4, 64, 64, "4.0", "256"},
      {16, 10, 4096, "0.0390625", "160"},  // less than one request
  };
  for (const Case& c : cases) {
    CacheConfigInfo info;
    info.block_size = c.block_size;
    info.num_gpu_blocks = c.num_gpu_blocks;
    info.max_model_len = c.max_model_len;
    const auto m = labels_of(info);
    EXPECT_EQ(m.at("kv_cache_max_concurrency"), c.concurrency) << c.num_gpu_blocks;
    EXPECT_EQ(m.at("kv_cache_size_tokens"), c.size_tokens) << c.num_gpu_blocks;
  }
}

TEST(CacheConfigInfo, SettingsArePrintedAsPythonsStr) {
  SchedulerConfig s;
  s.block_size = 32;
  s.num_gpu_blocks = 500;
  s.max_model_len = 2048;
  s.enable_prefix_caching = false;
  const auto unset = labels_of(cache_config_info(s, "fp8", 0.5));
  const std::map<std::string, std::string> want = {
      {"block_size", "32"},
      {"cache_dtype", "fp8"},
      {"enable_prefix_caching", "False"},
      {"engine", "1"},
      {"gpu_memory_utilization", "0.5"},
      {"is_attention_free", "False"},
      {"kv_cache_max_concurrency", "7.8125"},
      {"kv_cache_size_tokens", "16000"},
      {"num_cpu_blocks", "None"},
      {"num_gpu_blocks", "500"},
      {"num_gpu_blocks_override", "None"},
  };
  EXPECT_EQ(unset, want);
  const auto set = labels_of(cache_config_info(s, "auto", 0.92, 500));
  EXPECT_EQ(set.at("num_gpu_blocks_override"), "500");
  EXPECT_EQ(set.at("gpu_memory_utilization"), "0.92");
  // No model_name: vLLM's info gauge carries the engine only.
  EXPECT_EQ(set.count("model_name"), 0u);
}

TEST(CacheConfigInfo, LabelsAreSortedByName) {
  const auto labels = cache_config_labels(CacheConfigInfo{}, 0);
  for (size_t i = 1; i < labels.size(); ++i) EXPECT_LT(labels[i - 1].first, labels[i].first);
}

}  // namespace
}  // namespace llm
