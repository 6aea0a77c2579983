#include "core/cache_config_info.h"

#include <algorithm>

#include "core/ceil_div.h"
#include "core/python_float.h"

namespace llm {
namespace {

std::string python_bool(bool b) { return b ? "True" : "False"; }

std::string python_optional(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "None";
}

}  // namespace

CacheConfigInfo cache_config_info(const SchedulerConfig& s, std::string cache_dtype,
                                  double gpu_memory_utilization,
                                  std::optional<int64_t> num_gpu_blocks_override) {
  CacheConfigInfo info;
  info.block_size = s.block_size;
  info.num_gpu_blocks = s.num_gpu_blocks;
  info.num_gpu_blocks_override = num_gpu_blocks_override;
  info.max_model_len = s.max_model_len;
  info.cache_dtype = std::move(cache_dtype);
  info.enable_prefix_caching = s.enable_prefix_caching;
  info.gpu_memory_utilization = gpu_memory_utilization;
  info.kv_cache_metrics = s.kv_cache_metrics;
  return info;
}

double kv_cache_max_concurrency(const CacheConfigInfo& info) {
  if (info.block_size < 1 || info.max_model_len < 1) return 0;
  const int64_t blocks_per_request = ceil_div(info.max_model_len, info.block_size);
  return static_cast<double>(info.num_gpu_blocks) / static_cast<double>(blocks_per_request);
}

int64_t kv_cache_size_tokens(const CacheConfigInfo& info) {
  // Python's int() truncates toward zero.
  return static_cast<int64_t>(kv_cache_max_concurrency(info) *
                              static_cast<double>(info.max_model_len));
}

std::vector<std::pair<std::string, std::string>> cache_config_labels(const CacheConfigInfo& info,
                                                                     int engine_index) {
  std::vector<std::pair<std::string, std::string>> labels = {
      {"block_size", std::to_string(info.block_size)},
      {"cache_dtype", info.cache_dtype},
      {"enable_prefix_caching", python_bool(info.enable_prefix_caching)},
      {"engine", std::to_string(engine_index)},
      {"gpu_memory_utilization", python_float(info.gpu_memory_utilization)},
      {"is_attention_free", python_bool(false)},
      {"kv_cache_max_concurrency", python_float(kv_cache_max_concurrency(info))},
      {"kv_cache_size_tokens", std::to_string(kv_cache_size_tokens(info))},
      {"num_cpu_blocks", "None"},
      {"num_gpu_blocks", std::to_string(info.num_gpu_blocks)},
      {"num_gpu_blocks_override", python_optional(info.num_gpu_blocks_override)},
  };
  std::sort(labels.begin(), labels.end());
  return labels;
}

}  // namespace llm
