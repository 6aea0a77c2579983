// Roofline cost model of the mock GPU: FLOPs, bytes and all-reduce time of one engine step, and
// the KV-cache capacity of one GPU. docs/cost-model.md derives every formula and constant.
// Thread-safety: pure functions over their arguments; safe from any thread.
#include "backends/sim/cost_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace llm {
namespace {

// Memory held back on every GPU for the CUDA context, NCCL and cuBLAS workspaces and the
// CUDA-graph pool, as a fraction of the GPU's total memory: about 1.2 GiB on an 80 GB GPU and
// 2.1 GiB on an H200, our estimate of vLLM's non-torch plus CUDA-graph memory for dense models of
// this class. An assumption, not a published constant (see docs/cost-model.md).
constexpr double kFixedReserveFraction = 0.015;

// Bytes per activation element during the profiling step (bf16).
constexpr double kActivationBytes = 2.0;

// Bytes per element of the hidden states that the tensor-parallel all-reduces move (bf16).
constexpr double kAllReduceElementBytes = 2.0;

// All-reduces per transformer layer under Megatron-style tensor parallelism: one after the
// attention output projection, one after the MLP down projection.
constexpr double kAllReducesPerLayer = 2.0;

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
      b.sampling_sequences < 0) {
    throw std::invalid_argument("cost model: batch counts must not be negative");
  }
}

void check_step_inputs(const Deployment& d, const BatchCost& b) {
  check_deployment(d);
  const GpuProfile& g = d.gpu;
  if (!(g.bf16_flops > 0) || !(g.compute_efficiency > 0)) {
    throw std::invalid_argument("cost model: GPU '" + g.name +
                                "' needs bf16_flops > 0 and compute_efficiency > 0");
  }
  if (!(g.hbm_bytes_per_s > 0) || !(g.memory_efficiency > 0)) {
    throw std::invalid_argument("cost model: GPU '" + g.name +
                                "' needs hbm_bytes_per_s > 0 and memory_efficiency > 0");
  }
  if (d.tensor_parallel_size > 1 && !(g.link_bytes_per_s > 0)) {
    throw std::invalid_argument("cost model: GPU '" + g.name +
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

double weight_bytes_per_gpu(const Deployment& d) {
  return model_weight_bytes(d.model) / as_double(d.tensor_parallel_size);
}

// Peak activation of a profiling forward pass over `tokens` tokens on one rank: the gate/up
// product (2 * ffn / tp wide), the SiLU-and-multiply output (ffn / tp wide) and four hidden-wide
// buffers (residual, normed input, attention output, MLP output), all bf16.
double profiling_activation_bytes(const Deployment& d, int64_t tokens) {
  const double ffn_per_gpu = as_double(d.model.ffn) / as_double(d.tensor_parallel_size);
  const double width = 3.0 * ffn_per_gpu + 4.0 * as_double(d.model.hidden);
  return as_double(tokens) * width * kActivationBytes;
}

}  // namespace

int64_t kv_bytes_per_token(const ModelShape& m, int64_t kv_cache_dtype_bytes) {
  return 2 * m.layers * m.kv_heads * m.head_dim * kv_cache_dtype_bytes;
}

int64_t kv_heads_per_gpu(const Deployment& d) {
  check_deployment(d);
  return std::max<int64_t>(d.model.kv_heads / d.tensor_parallel_size, 1);
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

double step_comm_seconds(const Deployment& d, const BatchCost& batch) {
  check_deployment(d);
  const int64_t tp = d.tensor_parallel_size;
  if (tp == 1) return 0.0;
  const double ring_factor = 2.0 * as_double(tp - 1) / as_double(tp);
  const double payload =
      as_double(batch.new_tokens) * as_double(d.model.hidden) * kAllReduceElementBytes;
  const double one_allreduce =
      ring_factor * payload / d.gpu.link_bytes_per_s + as_double(d.gpu.allreduce_latency_ns) * 1e-9;
  return kAllReducesPerLayer * as_double(d.model.layers) * one_allreduce;
}

Nanos step_time_ns(const Deployment& d, const BatchCost& batch) {
  if (d.fitted) {
    check_batch(batch);
    return fitted_step_time_ns(*d.fitted, batch);
  }
  check_step_inputs(d, batch);
  if (batch.num_sequences == 0 && batch.new_tokens == 0) return 0;
  const GpuProfile& g = d.gpu;
  const double compute_s = step_flops(d, batch) / (g.bf16_flops * g.compute_efficiency);
  const double memory_s = step_bytes(d, batch) / (g.hbm_bytes_per_s * g.memory_efficiency);
  const double device_s = std::max(compute_s, memory_s) + step_comm_seconds(d, batch);
  const Nanos device_ns = static_cast<Nanos>(std::llround(device_s * 1e9));
  const Nanos overhead_ns = g.step_overhead_ns + g.per_sequence_overhead_ns * batch.num_sequences;
  return std::max<Nanos>(device_ns + overhead_ns, 1);
}

int64_t kv_block_bytes_per_gpu(const Deployment& d, int64_t block_size) {
  const ModelShape& m = d.model;
  return 2 * block_size * kv_heads_per_gpu(d) * m.head_dim * d.kv_cache_dtype_bytes * m.layers;
}

double non_kv_reserve_bytes(const Deployment& d, int64_t max_num_batched_tokens) {
  check_deployment(d);
  return kFixedReserveFraction * d.gpu.memory_bytes +
         profiling_activation_bytes(d, max_num_batched_tokens);
}

double kv_cache_bytes_per_gpu(const Deployment& d, double gpu_memory_utilization,
                              int64_t max_num_batched_tokens) {
  const double requested = d.gpu.memory_bytes * gpu_memory_utilization;
  return requested - weight_bytes_per_gpu(d) - non_kv_reserve_bytes(d, max_num_batched_tokens);
}

int64_t num_gpu_blocks(const Deployment& d, double gpu_memory_utilization, int64_t block_size,
                       int64_t max_num_batched_tokens) {
  if (block_size < 1) {
    throw std::invalid_argument("cost model: block_size must be >= 1, got " +
                                std::to_string(block_size));
  }
  const int64_t block_bytes = kv_block_bytes_per_gpu(d, block_size);
  if (block_bytes < 1) {
    throw std::invalid_argument("cost model: model '" + d.model.name + "' has no KV cache");
  }
  const double available =
      kv_cache_bytes_per_gpu(d, gpu_memory_utilization, max_num_batched_tokens);
  return static_cast<int64_t>(std::floor(available / as_double(block_bytes)));
}

}  // namespace llm
