#include "backends/cpu/cpu_engine_config.h"

#include <algorithm>
#include <climits>

#include "core/ceil_div.h"
#include "core/flag_values.h"

namespace llm {

int64_t kv_bytes_per_block(const ModelConfig& m, int32_t block_size) {
  const int64_t head_dim =
      m.head_dim > 0 ? m.head_dim : m.hidden_size / std::max<int64_t>(m.num_attention_heads, 1);
  return 2 * m.num_hidden_layers * m.num_key_value_heads * head_dim * block_size *
         static_cast<int64_t>(sizeof(float));
}

int64_t model_context_length(const ModelConfig& model) {
  return model.max_position_embeddings > 0 ? model.max_position_embeddings : 2048;
}

SchedulerConfig cpu_scheduler_config(const EngineArgs& a, const ModelConfig& model,
                                     int64_t kv_cache_memory_bytes, const char* kv_memory_flag) {
  SchedulerConfig s;
  const int64_t model_len = model_context_length(model);
  if (a.max_model_len && *a.max_model_len > model_len) {
    throw UsageError("--max-model-len " + std::to_string(*a.max_model_len) +
                     " exceeds the model's context length " + std::to_string(model_len) +
                     " (max_position_embeddings)");
  }
  s.max_model_len = a.max_model_len.value_or(model_len);
  s.block_size = a.block_size.value_or(16);
  s.max_num_seqs = a.max_num_seqs.value_or(256);
  s.max_num_batched_tokens = a.max_num_batched_tokens.value_or(
      a.enable_chunked_prefill ? 2048 : std::max<int64_t>(2048, s.max_model_len));
  s.long_prefill_token_threshold = a.long_prefill_token_threshold;
  s.enable_chunked_prefill = a.enable_chunked_prefill;
  s.enable_prefix_caching = a.enable_prefix_caching;
  s.max_num_active_seqs = a.max_num_active_seqs.value_or(0);
  s.scheduler_reserve_full_isl = a.scheduler_reserve_full_isl;
  s.kv_cache_metrics = a.kv_cache_metrics;
  s.kv_cache_metrics_sample = a.kv_cache_metrics_sample;
  s.policy = a.policy;
  if (a.async_scheduling.value_or(false)) {
    throw UsageError(
        "--async-scheduling: the cpu backend runs each step after the previous one (there is no "
        "device to overlap); the flag models vLLM on the simulated backend");
  }

  const int64_t per_block = kv_bytes_per_block(model, s.block_size);
  const int64_t blocks_per_seq = ceil_div(s.max_model_len, s.block_size);
  int64_t usable = 0;
  if (a.num_gpu_blocks_override) {
    usable = *a.num_gpu_blocks_override - 1;  // the override counts the null block too
  } else {
    const int64_t budget = kv_cache_memory_bytes / std::max<int64_t>(per_block, 1);
    usable = std::min<int64_t>(budget, s.max_num_seqs * blocks_per_seq);
    if (usable < blocks_per_seq) {
      throw UsageError(std::string(kv_memory_flag) + " " + std::to_string(kv_cache_memory_bytes) +
                       " holds " + std::to_string(budget) + " KV blocks of " +
                       std::to_string(per_block) + " bytes, fewer than the " +
                       std::to_string(blocks_per_seq) + " one sequence of --max-model-len " +
                       std::to_string(s.max_model_len) + " needs; raise " + kv_memory_flag +
                       " or lower --max-model-len");
    }
  }
  usable = std::min<int64_t>(usable, INT32_MAX - 1);
  s.num_gpu_blocks = static_cast<int32_t>(usable + 1);
  if (std::string problem = validate(s); !problem.empty()) throw UsageError(problem);
  return s;
}

}  // namespace llm
