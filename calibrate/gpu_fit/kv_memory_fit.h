// The fit of the KV-capacity constants (GpuMemoryCoefficients, backends/sim/gpu_preset.h) to the
// KV block counts vLLM logged for BLIS's H100 runs (blis/trainval-exact-config.json,
// total_kv_blocks, at vLLM's default gpu_memory_utilization 0.9): the memory each GPU keeps
// besides the weights and the cache. Llama-4-Scout is left out of the fit and reported: vLLM
// sizes its chunked-local-attention layers' cache apart (the hybrid KV-cache manager), which
// this model does not.
// Thread-safety: plain functions; they read files.
#pragma once

#include <string>
#include <vector>

#include "backends/sim/gpu_preset.h"
#include "backends/sim/model_shape.h"

namespace llm {

struct KvBlockSample {
  std::string source;
  ModelShape model;
  int64_t tensor_parallel_size = 1;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  double gpu_memory_utilization = 0.9;
  int64_t block_size = 16;
  int64_t logged_blocks = 0;
  bool fitted = true;  // false: reported only
};

// One sample per distinct engine configuration in the file.
std::vector<KvBlockSample> read_kv_block_samples(const std::string& truth_root);

// The block count the model gives a sample with GPU `g` (fractional: before flooring).
double predicted_kv_blocks(const GpuProfile& g, const KvBlockSample& s);

// Fits `g.memory` to the fitted samples; returns the residuals (predicted / logged - 1) of
// every sample, in order.
std::vector<double> fit_kv_memory(GpuProfile& g, const std::vector<KvBlockSample>& samples);

}  // namespace llm
