// Token sampling on the GPU, one thread block per row of fp32 logits, with the CPU backend's
// semantics (backends/cpu/sampler.h): greedy (argmax, the lowest id on a tie) when temperature <
// 1e-5; otherwise probabilities exp((l - max) / t) in double, the top-k cut (the k most probable,
// the lower id on ties), the top-p cut (the shortest most-probable-first prefix whose mass reaches
// top_p), then one inverse-CDF draw in token-id order. The uniform number is the CPU's:
// SplitMix64 (core/rng.h) seeded by hash_combine(seed, counter), a counter-based generator, so
// a request recomputed after preemption draws the same tokens and, given the same logits, the
// same token as the CPU backend. Ordering uses the (logit, -id) key, exact like the CPU's; masses
// are summed in a different order (double), which can move a cut only when a cumulative mass lies
// within about 1e-12 of top_p.
// Thread-safety: launches on the caller's stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace llm::kernels {

struct SamplingRow {
  double temperature = 1.0;
  double top_p = 1.0;
  int32_t top_k = 0;     // <= 0: no cut
  uint64_t seed = 0;     // SamplingParams::seed
  uint64_t counter = 0;  // the request's num_output_tokens
};

// tokens[r] = the token drawn for row r of logits ([rows][vocab]). workspace: rows * vocab doubles.
cudaError_t sample_tokens(const float* logits, const SamplingRow* rows_params, int32_t rows,
                          int32_t vocab, double* workspace, int32_t* tokens, cudaStream_t stream);

}  // namespace llm::kernels
