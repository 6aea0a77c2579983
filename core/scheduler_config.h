// Engine arguments that shape scheduling, named and defaulted as vLLM's engine arguments.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

enum class SchedulingPolicy : uint8_t { kFcfs, kPriority };

struct SchedulerConfig {
  int32_t max_num_seqs = 1024;  // vLLM's default on 80 GB+ GPUs (256 on smaller ones)
  // vLLM's max_num_active_seqs: admission from the waiting queue stops at this many running
  // requests (0 = max_num_seqs, vLLM's None); at most max_num_seqs. Nobody is preempted for it.
  int32_t max_num_active_seqs = 0;
  int64_t max_num_batched_tokens = 8192;  // token budget of one step
  int32_t block_size = 16;
  int64_t max_model_len = 131072;            // context length (prompt + output)
  int64_t long_prefill_token_threshold = 0;  // > 0 caps one request's prefill chunk
  bool enable_chunked_prefill = true;
  bool enable_prefix_caching = true;
  // vLLM's scheduler_reserve_full_isl (default true): a waiting request is admitted only if the
  // blocks for its whole current sequence fit in the free blocks, not merely its first chunk.
  bool scheduler_reserve_full_isl = true;
  SchedulingPolicy policy = SchedulingPolicy::kFcfs;
  int32_t num_gpu_blocks = 0;  // KV capacity including the null block
  // vLLM's async scheduling: step k+1 is scheduled while step k runs (EngineCore,
  // docs/scheduler.md).
  bool async_scheduling = false;
  // vLLM's --kv-cache-metrics and --kv-cache-metrics-sample: sample block residency
  // (core/kv_block_residency.h) for the vllm:kv_block_* histograms.
  bool kv_cache_metrics = false;
  double kv_cache_metrics_sample = 0.01;  // in [0, 1]; 0 samples nothing (vLLM: disabled)
};

// Empty when valid, else a message naming the offending argument (as its command-line flag).
std::string validate(const SchedulerConfig& config);

// The running requests at which admission stops: max_num_active_seqs, else max_num_seqs.
inline int32_t max_num_active_reqs(const SchedulerConfig& c) {
  return c.max_num_active_seqs > 0 ? c.max_num_active_seqs : c.max_num_seqs;
}

}  // namespace llm
