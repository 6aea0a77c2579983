// The CPU references the GPU kernel tests compare against, in the standard library alone (so
// kernels/ builds on the GPU machine, which has none of our other libraries). Each function is the
// math of a backends/cpu function on the kernels' data types (bf16 inputs widened to fp32), and
// backends/cuda/kernel_reference_test.cpp checks it against that function in CI:
// - ref_rms_norm          backends/cpu/vector_ops.h rms_norm
// - ref_silu_mul          backends/cpu/vector_ops.h silu_mul
// - ref_rope              backends/cpu/rope.h rope_angles + apply_rope (both pair layouts)
// - ref_paged_attention   backends/cpu/attention.h paged_attention
// - ref_sample            backends/cpu/sampler.h sample_token with sampling_seed
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace llm::kernels::reference {

// bf16 bits of x, rounded to nearest even (NaN stays NaN).
uint16_t to_bf16(float x);
float from_bf16(uint16_t bits);
// fp8 e4m3 (the OCP/NVIDIA "e4m3fn": no infinities, max 448): the nearest code, saturating.
uint8_t to_fp8_e4m3(float x);
float from_fp8_e4m3(uint8_t code);

// out = w * (x / sqrt(mean(x^2) + eps)), fp32 with a sequential sum.
void ref_rms_norm(const float* x, const float* w, int64_t n, double eps, float* out);

// out[i] = g / (1 + exp(-g)) * u.
void ref_silu_mul(const float* gate, const float* up, int64_t n, float* out);

// Rotates one head in place at position pos with inv_freq (head_dim / 2 values); interleaved
// pairs (2i, 2i+1) instead of (i, i + head_dim/2).
void ref_rope(float* head, int64_t head_dim, const std::vector<double>& inv_freq, int64_t pos,
              bool interleaved);

// One query head over positions 0..pos: keys(j) / values(j) are the head_dim values of position j.
// Two-pass softmax and position-order sums, as the CPU backend.
struct RefKv {
  std::vector<float> k, v;  // [positions][head_dim]
};
void ref_attention(const float* q, const RefKv& kv, int64_t head_dim, int64_t pos, float scale,
                   float* out);

struct RefSampling {
  double temperature = 1.0;
  double top_p = 1.0;
  int32_t top_k = 0;
  uint64_t seed = 0;
  uint64_t counter = 0;
};
int32_t ref_sample(const std::vector<float>& logits, const RefSampling& params);

// core/rng.h's SplitMix64 pieces, for the reference draw and the tests' data.
uint64_t ref_mix64(uint64_t x);
double ref_uniform(uint64_t seed, uint64_t counter);  // Rng(hash_combine(seed, counter)).uniform()

}  // namespace llm::kernels::reference
