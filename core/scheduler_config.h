// Engine arguments that shape scheduling, named and defaulted as vLLM's engine arguments.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

enum class SchedulingPolicy : uint8_t { kFcfs, kPriority };

struct SchedulerConfig {
  int32_t max_num_seqs = 1024;            // vLLM's default on 80 GB+ GPUs (256 on smaller ones)
  int64_t max_num_batched_tokens = 8192;  // token budget of one step
  int32_t block_size = 16;
  int64_t max_model_len = 131072;            // context length (prompt + output)
  int64_t long_prefill_token_threshold = 0;  // > 0 caps one request's prefill chunk
  bool enable_chunked_prefill = true;
  bool enable_prefix_caching = true;
  SchedulingPolicy policy = SchedulingPolicy::kFcfs;
  int32_t num_gpu_blocks = 0;  // KV capacity including the null block
  // vLLM's async scheduling: step k+1 is scheduled while step k runs (EngineCore,
  // docs/scheduler.md).
  bool async_scheduling = false;
};

// Empty when valid, else a message naming the offending argument (as its command-line flag).
std::string validate(const SchedulerConfig& config);

}  // namespace llm
