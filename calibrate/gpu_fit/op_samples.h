// One published operator timing on one card (a GEMM over some tokens, a decode-attention kernel
// over some sequences, an all-reduce of some bytes, ...), described by what the GPU step model
// (backends/sim/gpu_step_model.h) needs to price it, with the time that was measured. The readers
// of ../shared/gpu-truth turn each profile row into one; the fit compares the model's price with
// the measurement.
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <vector>

#include "backends/sim/gpu_step_model.h"

namespace llm {

enum class OpKind {
  kGemm,              // one or more GEMM kernels whose times add up (a layer's projections, ...)
  kFp8Gemm,           // the same with FP8 weights (fitted after the bf16 ones)
  kDecodeAttention,   // one decode-attention kernel
  kPrefillAttention,  // one prefill-attention kernel
  kMixedAttention,    // decodes beside a prefill chunk, in one measured time
  kAllreduce,
  kElementwise,  // norms, activation, rotary: bytes moved
};

struct GemmCall {
  double params = 0;        // weights of the matrix (per rank)
  double weight_bytes = 2;  // bytes per weight
  double tokens = 0;        // token rows through it
};

struct OpSample {
  std::string card;    // the preset it calibrates ("H100-SXM")
  std::string group;   // what it measures, for the residual tables ("Llama-2-7b tp1 gemm")
  std::string source;  // file and row
  // The publication it comes from ("blis", "vidur", ...): in a fit each origin weighs the same,
  // and within it each group, whatever their row counts.
  std::string origin;
  OpKind kind = OpKind::kGemm;
  std::vector<GemmCall> gemms;
  // Decode attention: sequences and the KV bytes they read.
  double decode_sequences = 0;
  double decode_kv_bytes = 0;
  double query_heads_per_kv_head = 1;  // G, for decodes beside a chunk (mixed_reads_per_query_head)
  // Prefill attention: tokens, query heads and head size, causal pairs, cached KV read.
  double prefill_tokens = 0;
  double heads = 0;
  double head_dim = 0;
  double pairs = 0;
  double prefill_kv_bytes = 0;
  // All-reduce: GPUs and bytes.
  int64_t gpus = 0;
  double bytes = 0;
  // Elementwise: bytes moved by one kernel (plus its launch, priced as a GEMM kernel's).
  double elementwise_bytes = 0;
  double tokens = 0;        // the row's token count, where it has one
  bool check_only = false;  // reported beside the fit, not fitted (eager-mode timings)
  double measured_ns = 0;
};

// The model's price of the sample under `c`.
double predict_op_ns(const GpuStepCoefficients& c, const OpSample& s);

}  // namespace llm
