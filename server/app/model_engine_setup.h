// The engine configuration of a real backend (--backend cpu), which comes from the model file
// rather than from a simulated GPU: the context length from the model's max_position_embeddings
// (capped by --max-model-len), and the KV cache's block count from --num-gpu-blocks-override or
// else from the model's bytes per block within --kv-cache-memory-bytes (enough for
// --max-num-seqs full-length sequences when the budget allows).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "backends/model/model_config.h"
#include "server/app/server_options.h"

namespace llm {

// Bytes of one KV block in fp32: keys and values of every layer and KV head.
int64_t kv_bytes_per_block(const ModelConfig& model, int32_t block_size);

// Throws UsageError naming the flag (e.g. a budget too small for one full-length sequence).
EngineSetup make_model_engine_setup(const ServerOptions& options, const ModelConfig& model);

}  // namespace llm
