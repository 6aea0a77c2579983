// The engine configuration of a real model on the CUDA backend (llmserve --backend cuda, llmsim
// calibrate --backend cuda): the CPU backend's rules for the context length and batch limits
// (backends/cpu/cpu_engine_config.h), with the KV cache sized as vLLM sizes it on a GPU:
//   --num-gpu-blocks-override N        N blocks (the null block included);
//   else --kv-cache-memory-bytes B     B / bytes_per_block blocks;
//   else                               (total * --gpu-memory-utilization - weights - activations)
//                                      / bytes_per_block, after checking that the device's free
//                                      memory covers total * --gpu-memory-utilization (vLLM's
//                                      startup check).
// bytes_per_block counts K and V of every layer and KV head in the --kv-cache-dtype (auto: bf16,
// 2 bytes; fp8 / fp8_e4m3: 1 byte).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/model/model_config.h"
#include "core/engine_args.h"
#include "core/scheduler_config.h"

namespace llm {

// Device memory as cudaMemGetInfo reports it before the model is loaded.
struct CudaMemoryInfo {
  int64_t total_bytes = 0;
  int64_t free_bytes = 0;
};

struct CudaKvPlan {
  SchedulerConfig scheduler;
  int64_t bytes_per_block = 0;
  int32_t kv_dtype_bytes = 2;  // 2: bf16, 1: fp8 e4m3
  std::string cache_dtype;     // as vllm:cache_config_info reports it: "auto" or "fp8_e4m3"
  int64_t kv_bytes = 0;        // num_gpu_blocks * bytes_per_block
};

// Bytes of one entry for --kv-cache-dtype `dtype` (empty = auto); throws UsageError for others.
int32_t cuda_kv_dtype_bytes(const std::string& dtype);

// Bytes of one KV block: 2 (K, V) * layers * kv_heads * head_dim * block_size * entry bytes.
int64_t cuda_kv_bytes_per_block(const ModelConfig& model, int32_t block_size, int32_t dtype_bytes);

// Peak activation bytes the backend reserves for a step of max_num_batched_tokens tokens and
// max_num_seqs sampling rows (its scratch buffers, kernels/ workspaces and cuBLAS's workspace).
int64_t cuda_activation_bytes(const ModelConfig& model, int64_t max_num_batched_tokens,
                              int64_t max_num_seqs, int64_t max_model_len);

// Throws UsageError naming the flag (no room for the KV cache, a budget below one full-length
// sequence, free memory below the utilisation's share).
CudaKvPlan cuda_kv_plan(const EngineArgs& args, const ModelConfig& model,
                        const CudaMemoryInfo& memory, int64_t weight_bytes,
                        std::optional<int64_t> kv_cache_memory_bytes);

}  // namespace llm
