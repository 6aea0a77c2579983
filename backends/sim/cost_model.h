// The mock GPU's cost model: how long one engine step takes for a deployment (a GPU, a model
// shape, a tensor-parallel degree, a KV dtype) and a batch, by the GPU step model
// (gpu_step_model.h) with the GPU's fitted coefficients, or by a calibrated engine's fitted step
// model (--profile); and how many KV-cache blocks fit, as vLLM sizes them. Deterministic, pure
// functions over plain structs. docs/cost-model.md gives the formulas and the fits.
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/sim/gpu_preset.h"
#include "backends/sim/model_shape.h"
#include "backends/sim/step_model.h"
#include "backends/sim/step_noise.h"
#include "core/clock.h"

namespace llm {

// Aggregate of one step's batch. All cost terms are sums over the sequences, so the engine can
// accumulate them without building a list (O(1) per sequence). For sequence i: c_i tokens already
// cached, n_i new. A sequence computing one new token is a decode (the decode-attention kernel
// reads its c_i cached tokens); the rest are prefill chunks.
struct BatchCost {
  int64_t num_sequences = 0;
  int64_t new_tokens = 0;             // N = sum n_i
  int64_t context_tokens = 0;         // sum c_i (KV read)
  double attention_pairs = 0;         // sum n_i * (c_i + n_i / 2) (causal attention work)
  int64_t sampling_sequences = 0;     // sequences whose last position is sampled this step
  int64_t decode_sequences = 0;       // sequences with n_i == 1
  int64_t decode_context_tokens = 0;  // sum c_i over those

  void add(int64_t cached, int64_t fresh, bool samples) {
    num_sequences += 1;
    new_tokens += fresh;
    context_tokens += cached;
    attention_pairs += static_cast<double>(fresh) * (static_cast<double>(cached) + fresh * 0.5);
    sampling_sequences += samples ? 1 : 0;
    if (fresh == 1) {
      decode_sequences += 1;
      decode_context_tokens += cached;
    }
  }
};

struct Deployment {
  GpuProfile gpu;
  ModelShape model;
  int64_t tensor_parallel_size = 1;
  int64_t kv_cache_dtype_bytes = 2;  // 2 for auto/bf16, 1 for fp8
  // A calibrated engine (--profile): step times come from this fit, not the roofline; gpu is then
  // unused and model holds only the vocabulary and context length.
  std::optional<FittedStepModel> fitted;
  // With a fitted model: the measured scatter of step times around it, which SimBackend draws
  // from (step_noise.h); step_time_ns itself never applies it.
  std::optional<StepTimeNoise> step_noise;
};

// Step time in nanoseconds (>= 1 for a non-empty batch, 0 for an empty one): the fitted model's
// when the deployment has one, else the GPU step model's. Throws std::invalid_argument for a
// deployment it cannot price (tp < 1, a model or coefficients that are not usable, tp > 1 on a
// GPU without a link) or a batch with negative counts.
Nanos step_time_ns(const Deployment& d, const BatchCost& batch);

// The step's work, per tensor-parallel rank, for reports and benchmarks: FLOPs (the GEMMs of the
// tokens' active weights, causal attention, the LM head of the sampled positions) and bytes
// (every weight the step reads, once, the KV read and written).
double step_flops(const Deployment& d, const BatchCost& batch);
double step_bytes(const Deployment& d, const BatchCost& batch);

// KV bytes one token takes across the whole model (all layers, all KV heads, K and V).
int64_t kv_bytes_per_token(const ModelShape& m, int64_t kv_cache_dtype_bytes);

// KV heads one tensor-parallel rank holds: kv_heads / tp, at least 1 (heads are replicated when
// tp exceeds kv_heads).
int64_t kv_heads_per_gpu(const Deployment& d);

// KV bytes one block takes on one GPU (tensor-parallel rank), all layers.
int64_t kv_block_bytes_per_gpu(const Deployment& d, int64_t block_size);

// Bytes of the weights one GPU holds (the model's over tp).
double weight_bytes_per_gpu(const Deployment& d);

// KV cache capacity in blocks, as vLLM sizes it (GpuMemoryCoefficients; docs/cost-model.md).
// Returns 0 or less when the weights and the reserve alone do not fit.
int64_t num_gpu_blocks(const Deployment& d, double gpu_memory_utilization, int64_t block_size,
                       int64_t max_num_batched_tokens, int64_t max_num_seqs);

// The memory num_gpu_blocks keeps on one GPU besides the weights and the KV cache.
double non_kv_reserve_bytes(const Deployment& d, int64_t max_num_batched_tokens,
                            int64_t max_num_seqs);

// Bytes left for the KV cache on one GPU (negative when the weights and reserve do not fit).
double kv_cache_bytes_per_gpu(const Deployment& d, double gpu_memory_utilization,
                              int64_t max_num_batched_tokens, int64_t max_num_seqs);

}  // namespace llm
