// The mock GPU's roofline cost model: how long one engine step takes for a GPU profile, a model
// shape, a tensor-parallel degree and a batch. Deterministic, pure functions over plain structs.
// Constants and their sources live in presets.cpp and docs/cost-model.md.
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/sim/model_shape.h"
#include "backends/sim/step_model.h"
#include "backends/sim/step_noise.h"
#include "core/clock.h"

namespace llm {

struct GpuProfile {
  std::string name;
  double memory_bytes = 0;             // driver-reported total memory of one GPU
  double hbm_bytes_per_s = 0;          // datasheet HBM bandwidth
  double bf16_flops = 0;               // dense BF16 peak FLOP/s
  double fp8_flops = 0;                // dense FP8 peak FLOP/s (0 if none)
  double link_bytes_per_s = 0;         // GPU-to-GPU, one way, per GPU
  double compute_efficiency = 0.8;     // achievable fraction of bf16_flops
  double memory_efficiency = 0.8;      // achievable fraction of hbm_bytes_per_s
  Nanos step_overhead_ns = 0;          // fixed per-step cost (scheduler, launch, sampling)
  Nanos per_sequence_overhead_ns = 0;  // extra per sequence in the batch
  Nanos allreduce_latency_ns = 0;      // fixed latency of one all-reduce when tp > 1
};

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
// when the deployment has one, else the roofline's. Throws
// std::invalid_argument for a deployment it cannot price (tp < 1, a zero peak or bandwidth, no
// GPU link with tp > 1) or a batch with negative counts.
Nanos step_time_ns(const Deployment& d, const BatchCost& batch);

// The roofline terms behind step_time_ns, per tensor-parallel rank (the whole model at tp == 1).
double step_flops(const Deployment& d, const BatchCost& batch);
double step_bytes(const Deployment& d, const BatchCost& batch);
// Seconds spent in the two all-reduces per layer (0 at tp == 1).
double step_comm_seconds(const Deployment& d, const BatchCost& batch);

// KV bytes one token takes across the whole model (all layers, all KV heads, K and V).
int64_t kv_bytes_per_token(const ModelShape& m, int64_t kv_cache_dtype_bytes);

// KV heads one tensor-parallel rank holds: kv_heads / tp, at least 1 (heads are replicated when
// tp exceeds kv_heads).
int64_t kv_heads_per_gpu(const Deployment& d);

// KV bytes one block takes on one GPU (tensor-parallel rank), all layers.
int64_t kv_block_bytes_per_gpu(const Deployment& d, int64_t block_size);

// KV cache capacity in blocks, as vLLM derives it (see docs/cost-model.md for the activation and
// graph reserve). Returns 0 or less when the weights alone do not fit.
int64_t num_gpu_blocks(const Deployment& d, double gpu_memory_utilization, int64_t block_size,
                       int64_t max_num_batched_tokens);

// The memory num_gpu_blocks sets aside on one GPU besides the weights: a fixed fraction of the
// GPU's memory plus the activation peak of a max_num_batched_tokens profiling step.
double non_kv_reserve_bytes(const Deployment& d, int64_t max_num_batched_tokens);

// Bytes left for the KV cache on one GPU (negative when the weights and reserve do not fit).
double kv_cache_bytes_per_gpu(const Deployment& d, double gpu_memory_utilization,
                              int64_t max_num_batched_tokens);

}  // namespace llm
