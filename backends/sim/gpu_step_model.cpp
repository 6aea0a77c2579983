// The GPU step model of gpu_step_model.h: one step's kernels on one tensor-parallel rank.
// Thread-safety: pure functions over their arguments.
#include "backends/sim/gpu_step_model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "backends/sim/cost_model.h"

namespace llm {
namespace {

double d_of(int64_t v) { return static_cast<double>(v); }

// Bytes of the activations one token moves through a layer's elementwise kernels (two fused
// add-and-norms, rotary, the KV write, the gated activation), 16-bit: the residual stream read and
// written twice, the activation's gate and up read and its output written, Q and K rotated.
double elementwise_bytes_per_token(double hidden, double activation_width, double qk_width) {
  return 2.0 * (8.0 * hidden + 3.0 * activation_width + 2.0 * qk_width);
}

}  // namespace

double gemm_ns(const GpuStepCoefficients& c, double params, double weight_bytes, double tokens) {
  if (!(params > 0) || !(tokens > 0)) return 0;
  const double flops_rate =
      weight_bytes < 2 && c.gemm_flops_fp8 > 0 ? c.gemm_flops_fp8 : c.gemm_flops_bf16;
  const double memory_ns = params * weight_bytes / c.weight_bytes_per_s * 1e9;
  const double compute_ns = 2.0 * params * tokens / flops_rate * 1e9;
  const double p = c.gemm_sharpness;
  // (a^p + b^p)^(1/p) computed as m * (1 + (r)^p)^(1/p) with m = max, r = min/max <= 1.
  const double hi = std::max(memory_ns, compute_ns);
  const double lo = std::min(memory_ns, compute_ns);
  const double fixed = c.gemm_kernel_ns + (weight_bytes < 2 ? c.fp8_gemm_extra_ns : 0.0);
  return fixed + hi * std::pow(1.0 + std::pow(lo / hi, p), 1.0 / p);
}

double expected_experts_touched(double experts, double top_k, double tokens) {
  if (!(tokens > 0) || !(experts > 0)) return 0;
  const double miss = 1.0 - std::min(top_k / experts, 1.0);
  return experts * (1.0 - std::pow(miss, tokens));
}

double decode_attention_ns(const GpuStepCoefficients& c, double sequences, double kv_bytes,
                           bool mixed, double query_heads_per_kv_head) {
  if (!(sequences > 0)) return 0;
  if (mixed) {
    const double reads = 1.0 + c.mixed_reads_per_query_head * (query_heads_per_kv_head - 1.0);
    return c.mixed_decode_per_sequence_ns * sequences +
           kv_bytes * reads / c.mixed_kv_bytes_per_s * 1e9;
  }
  return c.decode_kernel_ns + c.decode_per_sequence_ns * sequences +
         kv_bytes / c.kv_bytes_per_s * 1e9;
}

double prefill_attention_ns(const GpuStepCoefficients& c, double tokens, double heads,
                            double head_dim, double pairs, double kv_bytes) {
  if (!(tokens > 0)) return 0;
  return c.prefill_kernel_ns + c.prefill_per_token_head_ns * tokens * heads +
         4.0 * heads * head_dim * pairs / c.attention_flops * 1e9 +
         kv_bytes / c.prefill_kv_bytes_per_s * 1e9;
}

double allreduce_ns(const GpuStepCoefficients& c, int64_t gpus, double bytes) {
  if (gpus <= 1) return 0;
  const double n = d_of(gpus);
  return c.allreduce_ns + c.allreduce_per_doubling_ns * (std::log2(n) - 1.0) +
         2.0 * (n - 1.0) / n * bytes / c.link_bytes_per_s * 1e9;
}

namespace {

// The model's dimensions per tensor-parallel rank, as every term below reads them.
struct RankShape {
  double tpd, layers, h, hd, heads, kv_heads;
};

RankShape rank_shape(const ModelShape& m, int64_t tp) {
  const double tpd = d_of(tp);
  return {tpd,
          d_of(m.layers),
          d_of(m.hidden),
          d_of(m.head_dim),
          d_of(m.heads) / tpd,
          d_of(std::max<int64_t>(m.kv_heads / tp, 1))};
}

}  // namespace

double layer_gemms_ns(const GpuStepCoefficients& c, const GpuStepInputs& in, int64_t new_tokens) {
  const ModelShape& m = *in.model;
  const RankShape r = rank_shape(m, in.tensor_parallel_size);
  const double n = d_of(new_tokens);
  // Attention projections in every layer, then the dense MLP or the experts.
  const double attention_bytes = d_of(attention_weight_bytes(m));
  const double mlp_bytes = d_of(mlp_weight_bytes(m));
  const double base_bytes = d_of(m.weight_bytes_per_param);
  const double qkv = r.h * (r.heads + 2.0 * r.kv_heads) * r.hd;
  const double out = r.heads * r.hd * r.h;
  double gemm =
      r.layers * (gemm_ns(c, qkv, attention_bytes, n) + gemm_ns(c, out, attention_bytes, n));
  const double dense = d_of(dense_layers(m));
  if (dense > 0) {
    const double ffn = d_of(m.ffn) / r.tpd;
    gemm +=
        dense * (gemm_ns(c, 2.0 * r.h * ffn, mlp_bytes, n) + gemm_ns(c, r.h * ffn, mlp_bytes, n));
  }
  if (is_moe(m)) {
    const double experts = d_of(m.num_experts);
    const double top_k = d_of(m.experts_per_token);
    const double expert_ffn = d_of(m.expert_ffn) / r.tpd;
    const double touched = expected_experts_touched(experts, top_k, n);
    // The fused-MoE kernels read the touched experts' weights once and run N*k token-rows.
    const double rows_per_expert = touched > 0 ? n * top_k / touched : 0;
    double moe = gemm_ns(c, r.h * experts, base_bytes, n);  // router
    moe += gemm_ns(c, touched * 2.0 * r.h * expert_ffn, mlp_bytes, rows_per_expert);
    moe += gemm_ns(c, touched * r.h * expert_ffn, mlp_bytes, rows_per_expert);
    if (m.shared_expert_ffn > 0) {
      const double shared = d_of(m.shared_expert_ffn) / r.tpd;
      moe += gemm_ns(c, 2.0 * r.h * shared, mlp_bytes, n) + gemm_ns(c, r.h * shared, mlp_bytes, n);
    }
    gemm += d_of(m.moe_layers) * moe;
  }
  return gemm;
}

double lm_head_ns(const GpuStepCoefficients& c, const GpuStepInputs& in,
                  int64_t sampling_sequences) {
  const ModelShape& m = *in.model;
  const RankShape r = rank_shape(m, in.tensor_parallel_size);
  return gemm_ns(c, d_of(m.vocab) / r.tpd * r.h, d_of(m.weight_bytes_per_param),
                 d_of(sampling_sequences));
}

GpuStepTerms gpu_step_terms(const GpuStepCoefficients& c, const GpuStepInputs& in,
                            const BatchCost& b) {
  if (b.num_sequences == 0 && b.new_tokens == 0) return {};
  return gpu_step_terms(c, in, b, layer_gemms_ns(c, in, b.new_tokens),
                        lm_head_ns(c, in, b.sampling_sequences));
}

GpuStepTerms gpu_step_terms(const GpuStepCoefficients& c, const GpuStepInputs& in,
                            const BatchCost& b, double layer_gemms, double lm_head) {
  GpuStepTerms t;
  if (b.num_sequences == 0 && b.new_tokens == 0) return t;
  const ModelShape& m = *in.model;
  const int64_t tp = in.tensor_parallel_size;
  const RankShape r = rank_shape(m, tp);
  const double layers = r.layers;
  const double h = r.h;
  const double hd = r.hd;
  const double heads = r.heads;
  const double kv_heads = r.kv_heads;
  const double n = d_of(b.new_tokens);

  t.fixed_ns = c.step_ns + c.per_sequence_ns * d_of(b.num_sequences) +
               c.per_sample_ns * d_of(b.sampling_sequences) + c.per_layer_ns * layers;

  // Linear layers, per rank: the layers' matrices, then the LM head over the sampled positions.
  t.gemm_ns = layer_gemms + lm_head;
  const double dense = d_of(dense_layers(m));
  const double activation_width_moe =
      is_moe(m)
          ? (d_of(m.experts_per_token) * d_of(m.expert_ffn) + d_of(m.shared_expert_ffn)) / r.tpd
          : 0.0;

  // Attention: the decodes' kernel reads their KV; the prefill chunks' kernel computes their
  // causal pairs and reads their cached prefix. Separate kernels, so the times add.
  const double kv_token_bytes = 2.0 * kv_heads * hd * d_of(in.kv_dtype_bytes);
  const double decodes = d_of(b.decode_sequences);
  const double decode_kv = (d_of(b.decode_context_tokens) + decodes) * kv_token_bytes;
  const double prefill_tokens = n - decodes;
  const double prefill_pairs =
      std::max(0.0, b.attention_pairs - d_of(b.decode_context_tokens) - 0.5 * decodes);
  const double prefill_kv =
      d_of(std::max<int64_t>(b.context_tokens - b.decode_context_tokens, 0)) * kv_token_bytes;
  t.attention_ns =
      layers * (decode_attention_ns(c, decodes, decode_kv, prefill_tokens > 0, heads / kv_heads) +
                prefill_attention_ns(c, prefill_tokens, heads, hd, prefill_pairs, prefill_kv));

  // Elementwise kernels, at the streaming rate times elementwise_speed.
  const double qk_width = (heads + kv_heads) * hd;
  const double dense_bytes = elementwise_bytes_per_token(h, d_of(m.ffn) / r.tpd, qk_width);
  const double moe_bytes = elementwise_bytes_per_token(h, activation_width_moe, qk_width);
  const double elementwise_bytes =
      n * (dense * dense_bytes + d_of(m.moe_layers) * moe_bytes + layers * kv_token_bytes);
  t.elementwise_ns = elementwise_bytes / (c.weight_bytes_per_s * c.elementwise_speed) * 1e9;

  // Tensor parallelism: two all-reduces per layer and one after the embedding, of the N x H
  // hidden states in 16 bits.
  t.allreduce_ns = (2.0 * layers + 1.0) * allreduce_ns(c, tp, n * h * 2.0);
  return t;
}

const std::vector<GpuCoefficientField>& gpu_coefficient_fields() {
  using C = GpuStepCoefficients;
  static const std::vector<GpuCoefficientField> fields = {
      {"step_ns", &C::step_ns, false},
      {"per_sequence_ns", &C::per_sequence_ns, false},
      {"per_sample_ns", &C::per_sample_ns, false},
      {"per_layer_ns", &C::per_layer_ns, false},
      {"gemm_kernel_ns", &C::gemm_kernel_ns, false},
      {"weight_bytes_per_s", &C::weight_bytes_per_s, true},
      {"gemm_flops_bf16", &C::gemm_flops_bf16, true},
      {"gemm_flops_fp8", &C::gemm_flops_fp8, false},
      {"fp8_gemm_extra_ns", &C::fp8_gemm_extra_ns, false},
      {"gemm_sharpness", &C::gemm_sharpness, true},
      {"kv_bytes_per_s", &C::kv_bytes_per_s, true},
      {"decode_kernel_ns", &C::decode_kernel_ns, false},
      {"decode_per_sequence_ns", &C::decode_per_sequence_ns, false},
      {"prefill_kernel_ns", &C::prefill_kernel_ns, false},
      {"prefill_per_token_head_ns", &C::prefill_per_token_head_ns, false},
      {"attention_flops", &C::attention_flops, true},
      {"prefill_kv_bytes_per_s", &C::prefill_kv_bytes_per_s, true},
      {"mixed_decode_per_sequence_ns", &C::mixed_decode_per_sequence_ns, false},
      {"mixed_kv_bytes_per_s", &C::mixed_kv_bytes_per_s, true},
      {"mixed_reads_per_query_head", &C::mixed_reads_per_query_head, false, true},
      {"elementwise_speed", &C::elementwise_speed, true},
      {"allreduce_ns", &C::allreduce_ns, false},
      {"allreduce_per_doubling_ns", &C::allreduce_per_doubling_ns, false},
      {"link_bytes_per_s", &C::link_bytes_per_s, false}};
  return fields;
}

std::string gpu_coefficients_problem(const GpuStepCoefficients& c) {
  for (const GpuCoefficientField& f : gpu_coefficient_fields()) {
    const double value = c.*f.member;
    if (!std::isfinite(value)) return std::string(f.name) + ": must be a finite number";
    if (f.rate ? !(value > 0) : value < 0) {
      return std::string(f.name) + (f.rate ? ": must be > 0" : ": must be >= 0");
    }
  }
  if (c.gemm_sharpness < 1) return "gemm_sharpness: must be >= 1";
  if (c.mixed_reads_per_query_head > 1) return "mixed_reads_per_query_head: must be <= 1";
  return "";
}

}  // namespace llm
