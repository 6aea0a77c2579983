#include "core/scheduler_config.h"

#include "core/ceil_div.h"

namespace llm {

std::string validate(const SchedulerConfig& c) {
  if (c.max_num_seqs < 1) return "--max-num-seqs must be at least 1";
  if (c.max_num_active_seqs < 0) return "--max-num-active-seqs must be at least 1";
  if (c.max_num_active_seqs > c.max_num_seqs) {
    return "--max-num-active-seqs (" + std::to_string(c.max_num_active_seqs) +
           ") must be at most --max-num-seqs (" + std::to_string(c.max_num_seqs) + ")";
  }
  if (!(c.kv_cache_metrics_sample >= 0 && c.kv_cache_metrics_sample <= 1)) {
    return "--kv-cache-metrics-sample must be in [0, 1]";
  }
  if (c.max_num_batched_tokens < 1) return "--max-num-batched-tokens must be at least 1";
  if (c.block_size < 1) return "--block-size must be at least 1";
  if (c.max_model_len < 2) return "--max-model-len must be at least 2";
  if (c.long_prefill_token_threshold < 0) return "--long-prefill-token-threshold must be >= 0";
  if (!c.enable_chunked_prefill && c.max_num_batched_tokens < c.max_model_len) {
    return "--max-num-batched-tokens (" + std::to_string(c.max_num_batched_tokens) +
           ") is smaller than --max-model-len (" + std::to_string(c.max_model_len) +
           ") with chunked prefill off: long prompts could never be scheduled";
  }
  if (c.num_gpu_blocks < 2) return "the KV cache has fewer than 2 blocks";
  const int64_t blocks_for_one = ceil_div(c.max_model_len, c.block_size);
  if (blocks_for_one > c.num_gpu_blocks - 1) {
    return "--max-model-len " + std::to_string(c.max_model_len) + " needs " +
           std::to_string(blocks_for_one) + " KV blocks but the cache has only " +
           std::to_string(c.num_gpu_blocks - 1) +
           " usable blocks; lower --max-model-len or raise --gpu-memory-utilization";
  }
  return {};
}

}  // namespace llm
