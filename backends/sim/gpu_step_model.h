// The GPU step model: how long one engine step takes on a GPU, for any model shape, priced as the
// GPU runs the step, kernel by kernel, on one tensor-parallel rank:
//
//   step = step_ns + per_sequence_ns * S + per_sample_ns * Ssamp       host work, sampling
//        + L * per_layer_ns                                            norms, rotary, activation
//                                                                      and residual kernels,
//                                                                      launches
//        + sum over the layers' matrices of gemm(W, tokens)           QKV, output, MLP (or the
//                                                                      experts the step's tokens
//                                                                      touch), LM head
//        + L * (decode attention + prefill attention)                  separate kernels
//        + L * elementwise bytes per token * N / weight bandwidth      activations in and out
//        + (2 L + 2) * allreduce(N * H * 2 bytes)                      tensor parallelism only
//
//   gemm(W, n)  = gemm_kernel_ns + softmax_p(W bytes / weight_bytes_per_s, 2 W n / gemm_flops)
//   decode attention  = decode_kernel_ns + decode_per_sequence_ns * D
//                       + (KV the D decodes read) / kv_bytes_per_s
//                       (beside a prefill chunk: mixed_decode_per_sequence_ns * D
//                        + KV * (1 + f (G - 1)) / mixed_kv_bytes_per_s, inside the prefill's
//                        kernel, G query heads per KV head, f = mixed_reads_per_query_head)
//   prefill attention = prefill_kernel_ns + prefill_per_token_head_ns * (P tokens x heads)
//                       + 4 heads d * causal pairs / attention_flops
//                       + (cached prefix read) / prefill_kv_bytes_per_s
//   allreduce(b) = allreduce_ns + allreduce_per_doubling_ns * log2(tp) + 2 (tp-1)/tp b / link
//
// The fixed cost per kernel makes small reads slower than large ones (a matrix of b bytes
// streams at b / (gemm_kernel_ns + b / weight_bytes_per_s)); softmax_p is (a^p + b^p)^(1/p), a
// smooth maximum of the memory and the compute time, so a GEMM's FLOP rate grows with its tokens
// from memory-bound to gemm_flops, bending the more sharply the larger p. MoE layers read the
// experts the step's N tokens touch: E (1 - (1 - k/E)^N) of E under top-k routing. Every
// coefficient is fitted per card (llmsim calibrate --runs, docs/cost-model.md); a card without
// measurements derives from a measured one by its datasheet.
// Deterministic: fixed arithmetic in double, rounded once to nanoseconds.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/sim/model_shape.h"

namespace llm {

struct BatchCost;

struct GpuStepCoefficients {
  // Fixed costs.
  double step_ns = 0;          // per step: scheduling, input preparation, launches
  double per_sequence_ns = 0;  // per scheduled sequence
  double per_sample_ns = 0;    // per sampled sequence (sampler)
  double per_layer_ns = 0;     // per transformer layer: its small kernels
  // Linear layers.
  double gemm_kernel_ns = 0;      // fixed cost of one GEMM kernel
  double weight_bytes_per_s = 0;  // streaming rate of large weight reads
  double gemm_flops_bf16 = 0;     // GEMM rate at many tokens, 16-bit weights
  double gemm_flops_fp8 = 0;      // with FP8 weights (0: the bf16 rate, weight-only FP8)
  double fp8_gemm_extra_ns = 0;   // per FP8 GEMM: quantizing its input activations
  double gemm_sharpness = 4;      // p of the smooth maximum of memory and compute time
  // Attention.
  double kv_bytes_per_s = 0;             // rate of KV-cache reads
  double decode_kernel_ns = 0;           // per layer, when the step has decodes
  double decode_per_sequence_ns = 0;     // per layer and decode sequence
  double prefill_kernel_ns = 0;          // per layer, when the step has prefill tokens
  double prefill_per_token_head_ns = 0;  // per layer, prefill token and query head
  double attention_flops = 0;            // causal attention rate of prefill chunks
  double prefill_kv_bytes_per_s = 0;     // a prefill chunk's read of its cached prefix
  // Decodes in a step with a prefill chunk run inside the prefill's (varlen) kernel, not the
  // decode kernel: their own per-sequence cost and KV read rate.
  double mixed_decode_per_sequence_ns = 0;
  double mixed_kv_bytes_per_s = 0;
  // 1: the prefill kernel reads a decode's KV once per query head, not once per KV head (it runs
  // one program per query head and shares no KV between the G query heads of a group); 0: once
  // per KV head, as the decode kernel. Set by the fit, not fitted (docs/cost-model.md, "Mixed
  // steps"): 1 where a card's profiles time mixed steps, 0 where they are priced as the decode
  // kernel. Optional in a preset file (0).
  double mixed_reads_per_query_head = 0;
  // Elementwise kernels (norms, activation, rotary, KV write): bytes per token and layer moved at
  // weight_bytes_per_s times this factor.
  double elementwise_speed = 1;
  // Tensor parallelism.
  double allreduce_ns = 0;               // latency of one all-reduce between two GPUs
  double allreduce_per_doubling_ns = 0;  // added per doubling of the GPUs beyond two
  double link_bytes_per_s = 0;           // all-reduce bus bandwidth
};

// The terms of one step's time in nanoseconds, per tensor-parallel rank, so that a fit or a
// report can see what the model charges for.
struct GpuStepTerms {
  double fixed_ns = 0;      // step, sequences, samples, layers
  double gemm_ns = 0;       // all linear layers incl. experts and LM head
  double attention_ns = 0;  // decode and prefill attention
  double elementwise_ns = 0;
  double allreduce_ns = 0;
  double total() const { return fixed_ns + gemm_ns + attention_ns + elementwise_ns + allreduce_ns; }
};

// The deployment the model prices: a model shape split over `tensor_parallel_size` GPUs, with
// KV elements of `kv_dtype_bytes` bytes.
struct GpuStepInputs {
  const ModelShape* model = nullptr;
  int64_t tensor_parallel_size = 1;
  int64_t kv_dtype_bytes = 2;
};

GpuStepTerms gpu_step_terms(const GpuStepCoefficients& c, const GpuStepInputs& in,
                            const BatchCost& batch);

// The same terms, bit for bit, from the two GEMM sums that need pow, given (a caller may remember
// them per token count: StepPricer): layer_gemms = layer_gemms_ns(c, in, batch.new_tokens) and
// lm_head = lm_head_ns(c, in, batch.sampling_sequences).
GpuStepTerms gpu_step_terms(const GpuStepCoefficients& c, const GpuStepInputs& in,
                            const BatchCost& batch, double layer_gemms, double lm_head);

// Every layer's linear layers (attention projections, dense MLP or the experts the tokens touch)
// over `new_tokens` tokens, per rank.
double layer_gemms_ns(const GpuStepCoefficients& c, const GpuStepInputs& in, int64_t new_tokens);
// The LM head over `sampling_sequences` sampled positions, per rank.
double lm_head_ns(const GpuStepCoefficients& c, const GpuStepInputs& in,
                  int64_t sampling_sequences);

// The time of one GEMM kernel over `params` weights of `weight_bytes` bytes each and `tokens`
// tokens (also used by the fit).
double gemm_ns(const GpuStepCoefficients& c, double params, double weight_bytes, double tokens);

// The expected number of distinct experts `tokens` tokens touch with top-k routing over E
// experts, uniform: E (1 - (1 - k/E)^tokens); 0 for no tokens.
double expected_experts_touched(double experts, double top_k, double tokens);

// The decode attention of `sequences` sequences reading `kv_bytes` of KV cache: their own kernel,
// or (mixed) inside a prefill chunk's, where each of a KV head's `query_heads_per_kv_head` query
// heads reads it again as far as mixed_reads_per_query_head says.
double decode_attention_ns(const GpuStepCoefficients& c, double sequences, double kv_bytes,
                           bool mixed = false, double query_heads_per_kv_head = 1);
// One prefill-attention kernel over `tokens` tokens of `heads` query heads of `head_dim`,
// `pairs` causal pairs, reading `kv_bytes` of cached KV.
double prefill_attention_ns(const GpuStepCoefficients& c, double tokens, double heads,
                            double head_dim, double pairs, double kv_bytes);
// One all-reduce of `bytes` among `gpus` GPUs (0 for one GPU).
double allreduce_ns(const GpuStepCoefficients& c, int64_t gpus, double bytes);

// The coefficients by name, in file order; `rate` ones must be > 0, the rest >= 0.
struct GpuCoefficientField {
  const char* name;
  double GpuStepCoefficients::*member;
  bool rate;
  bool optional = false;  // a preset file may leave it out (its default then)
};
const std::vector<GpuCoefficientField>& gpu_coefficient_fields();

// "" when the coefficients can price steps (finite, the rates positive, the rest >= 0); else
// "FIELD: what is wrong".
std::string gpu_coefficients_problem(const GpuStepCoefficients& c);

}  // namespace llm
