// The engine configuration of a real model on the CPU backend (llmserve --backend cpu, llmsim
// calibrate --backend cpu), which comes from the model file rather than from a simulated GPU: the
// context length from the model's max_position_embeddings (capped by --max-model-len), and the KV
// cache's block count from --num-gpu-blocks-override or else from the model's fp32 bytes per block
// within the KV memory budget (enough for --max-num-seqs full-length sequences when it allows).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "backends/model/model_config.h"
#include "core/engine_args.h"
#include "core/scheduler_config.h"

namespace llm {

// Bytes of one KV block in fp32: keys and values of every layer and KV head.
int64_t kv_bytes_per_block(const ModelConfig& model, int32_t block_size);

// The model's context length: max_position_embeddings, or 2048 when the file has none.
int64_t model_context_length(const ModelConfig& model);

// Throws UsageError naming the flag (e.g. a budget too small for one full-length sequence;
// `kv_memory_flag` names the budget's flag in that message).
SchedulerConfig cpu_scheduler_config(const EngineArgs& args, const ModelConfig& model,
                                     int64_t kv_cache_memory_bytes,
                                     const char* kv_memory_flag = "--kv-cache-memory-bytes");

}  // namespace llm
