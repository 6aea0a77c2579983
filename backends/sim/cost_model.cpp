// The mock GPU's cost model: step times by the GPU step model or a fitted engine model, the step's
// work for reports, and the KV-cache capacity of one GPU. docs/cost-model.md derives every
// formula; the coefficients are fitted per card (backends/sim/gpus/*.json).
// Thread-safety: pure functions over their arguments; safe from any thread.
#include "backends/sim/cost_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "backends/sim/gpu_step_model.h"

namespace llm {
namespace {

double as_double(int64_t v) { return static_cast<double>(v); }

void check_deployment(const Deployment& d) {
  if (d.tensor_parallel_size < 1) {
    throw std::invalid_argument("cost model: tensor_parallel_size must be >= 1, got " +
                                std::to_string(d.tensor_parallel_size));
  }
  if (d.kv_cache_dtype_bytes < 1) {
    throw std::invalid_argument("cost model: kv_cache_dtype_bytes must be >= 1");
  }
}

void check_batch(const BatchCost& b) {
  if (b.num_sequences < 0 || b.new_tokens < 0 || b.context_tokens < 0 || b.attention_pairs < 0 ||
      b.sampling_sequences < 0 || b.decode_sequences < 0 || b.decode_context_tokens < 0) {
    throw std::invalid_argument("cost model: batch counts must not be negative");
  }
}

void check_step_inputs(const Deployment& d, const BatchCost& b) {
  check_deployment(d);
  if (const std::string problem = gpu_coefficients_problem(d.gpu.step); !problem.empty()) {
    throw std::invalid_argument("cost model: GPU '" + d.gpu.name + "': " + problem);
  }
  if (const std::string problem = model_shape_problem(d.model); !problem.empty()) {
    throw std::invalid_argument("cost model: model '" + d.model.name + "': " + problem);
  }
  if (d.tensor_parallel_size > 1 && !(d.gpu.step.link_bytes_per_s > 0)) {
    throw std::invalid_argument("cost model: GPU '" + d.gpu.name +
                                "' has no link_bytes_per_s, so tensor_parallel_size must be 1");
  }
  check_batch(b);
}

// Parameters of the per-layer matmuls one token runs through (QKV, attention output, gate/up/down
// of the dense MLP or of its top-k experts and the shared expert), all layers.
double layer_matmul_params(const ModelShape& m) {
  const LayerMatrices x = layer_matrices(m);
  const double moe = as_double(m.experts_per_token) * x.expert + x.shared_expert;
  return as_double(m.layers) * (x.qkv + x.attn_out) + as_double(dense_layers(m)) * x.dense_mlp +
         as_double(m.moe_layers) * moe;
}

// KV bytes one token takes on one tensor-parallel rank.
double kv_bytes_per_token_per_gpu(const Deployment& d) {
  const ModelShape& m = d.model;
  return 2.0 * as_double(m.layers) * as_double(kv_heads_per_gpu(d)) * as_double(m.head_dim) *
         as_double(d.kv_cache_dtype_bytes);
}

}  // namespace

int64_t kv_bytes_per_token(const ModelShape& m, int64_t kv_cache_dtype_bytes) {
  return 2 * m.layers * m.kv_heads * m.head_dim * kv_cache_dtype_bytes;
}

int64_t kv_heads_per_gpu(const Deployment& d) {
  check_deployment(d);
  return std::max<int64_t>(d.model.kv_heads / d.tensor_parallel_size, 1);
}

double weight_bytes_per_gpu(const Deployment& d) {
  return model_weight_bytes(d.model) / as_double(d.tensor_parallel_size);
}

double step_flops(const Deployment& d, const BatchCost& batch) {
  check_deployment(d);
  const ModelShape& m = d.model;
  const double matmul = 2.0 * layer_matmul_params(m) * as_double(batch.new_tokens);
  const double attention = as_double(m.layers) * 4.0 * as_double(m.heads) * as_double(m.head_dim) *
                           batch.attention_pairs;
  const double logits =
      2.0 * as_double(m.hidden) * as_double(m.vocab) * as_double(batch.sampling_sequences);
  return (matmul + attention + logits) / as_double(d.tensor_parallel_size);
}

double step_bytes(const Deployment& d, const BatchCost& batch) {
  check_deployment(d);
  const double kv_token = kv_bytes_per_token_per_gpu(d);
  const double kv_read = as_double(batch.context_tokens) * kv_token;
  const double kv_written = as_double(batch.new_tokens) * kv_token;
  return weight_bytes_per_gpu(d) + kv_read + kv_written;
}

Nanos step_time_ns(const Deployment& d, const BatchCost& batch) {
  if (d.fitted) {
    check_batch(batch);
    return fitted_step_time_ns(*d.fitted, batch);
  }
  check_step_inputs(d, batch);
  if (batch.num_sequences == 0 && batch.new_tokens == 0) return 0;
  const GpuStepInputs in{&d.model, d.tensor_parallel_size, d.kv_cache_dtype_bytes};
  const double ns = gpu_step_terms(d.gpu.step, in, batch).total();
  return std::max<Nanos>(static_cast<Nanos>(std::llround(ns)), 1);
}

int64_t kv_block_bytes_per_gpu(const Deployment& d, int64_t block_size) {
  const ModelShape& m = d.model;
  return 2 * block_size * kv_heads_per_gpu(d) * m.head_dim * d.kv_cache_dtype_bytes * m.layers;
}

double non_kv_reserve_bytes(const Deployment& d, int64_t max_num_batched_tokens,
                            int64_t max_num_seqs) {
  check_deployment(d);
  const GpuMemoryCoefficients& c = d.gpu.memory;
  return c.reserved_bytes + (d.tensor_parallel_size > 1 ? c.tensor_parallel_bytes : 0.0) +
         c.sampler_bytes_per_logit * as_double(max_num_seqs) * as_double(d.model.vocab) +
         c.activation_bytes_per_hidden * as_double(max_num_batched_tokens) *
             as_double(d.model.hidden);
}

double kv_cache_bytes_per_gpu(const Deployment& d, double gpu_memory_utilization,
                              int64_t max_num_batched_tokens, int64_t max_num_seqs) {
  const double requested = d.gpu.datasheet.memory_bytes * gpu_memory_utilization;
  return requested - weight_bytes_per_gpu(d) -
         non_kv_reserve_bytes(d, max_num_batched_tokens, max_num_seqs);
}

int64_t num_gpu_blocks(const Deployment& d, double gpu_memory_utilization, int64_t block_size,
                       int64_t max_num_batched_tokens, int64_t max_num_seqs) {
  if (block_size < 1) {
    throw std::invalid_argument("cost model: block_size must be >= 1, got " +
                                std::to_string(block_size));
  }
  const int64_t block_bytes = kv_block_bytes_per_gpu(d, block_size);
  if (block_bytes < 1) {
    throw std::invalid_argument("cost model: model '" + d.model.name + "' has no KV cache");
  }
  const double available =
      kv_cache_bytes_per_gpu(d, gpu_memory_utilization, max_num_batched_tokens, max_num_seqs);
  return static_cast<int64_t>(std::floor(available / as_double(block_bytes)));
}

}  // namespace llm
