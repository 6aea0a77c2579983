// The labels of vllm:cache_config_info: vLLM prints every field of its CacheConfig with Python's
// str() (`16`, `True`, `0.92`, `None`) as one label each, plus `engine`, with no model_name. These
// are the fields llmserve and llmsim have a value for; fields of features we do not have (CPU swap
// blocks) print `None`, as vLLM prints them when unset.
// Capacity as vLLM computes it (full attention, one KV cache group): a request of max_model_len
// tokens needs ceil(max_model_len / block_size) blocks, kv_cache_max_concurrency is num_gpu_blocks
// over that, and kv_cache_size_tokens is int(max_concurrency * max_model_len).
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/scheduler_config.h"

namespace llm {

struct CacheConfigInfo {
  int64_t block_size = 16;
  int64_t num_gpu_blocks = 0;
  std::optional<int64_t> num_gpu_blocks_override;  // --num-gpu-blocks-override, if given
  int64_t max_model_len = 0;                       // for the capacity labels
  std::string cache_dtype = "auto";
  bool enable_prefix_caching = true;
  double gpu_memory_utilization = 0.92;
  bool kv_cache_metrics = false;  // --kv-cache-metrics: not a label; the kv_block_* series exist
};

// The info of an engine with scheduler config `s`.
CacheConfigInfo cache_config_info(const SchedulerConfig& s, std::string cache_dtype,
                                  double gpu_memory_utilization,
                                  std::optional<int64_t> num_gpu_blocks_override = std::nullopt);

// Requests of max_model_len tokens the cache holds at once (vLLM's kv_cache_max_concurrency).
double kv_cache_max_concurrency(const CacheConfigInfo& info);
// Tokens the cache holds (vLLM's kv_cache_size_tokens).
int64_t kv_cache_size_tokens(const CacheConfigInfo& info);

// Label name and value, sorted by name, `engine` included.
std::vector<std::pair<std::string, std::string>> cache_config_labels(const CacheConfigInfo& info,
                                                                     int engine_index);

}  // namespace llm
