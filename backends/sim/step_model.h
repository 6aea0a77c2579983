// A step-time model fitted to one real engine's measured steps (llmsim calibrate), which a replay
// with --profile uses instead of the roofline. Each term is a cost the real engine pays:
//
//   step = overhead
//        + per_sequence * S                      host work and kernels per sequence in the batch
//        + per_token * max(N, token_knee)        the layers' GEMMs: weight streaming below the
//                                                knee (the step costs as much as at the knee),
//                                                compute per token above it
//        + per_context_token * C                 attention reading the cached K/V (sum c_i)
//        + per_attention_pair * A                causal attention work, sum n_i * (c_i + n_i/2)
//        + per_sample * max(Ssamp, sample_knee)  the LM head and sampling, the same shape
//        + multi_token * [N >= 2]                a step of several new tokens runs matrix-matrix
//                                                products; a one-token step (a batch-1 decode)
//                                                the matrix-vector ones, which stream the weights
//                                                faster on a CPU
//
// with S sequences, N new tokens, C cached tokens and Ssamp sampled sequences (BatchCost). The
// coefficients are non-negative, so the time grows with every term; docs/cost-model.md gives the
// fit and its residuals. Deterministic: the same model and batch give the same nanoseconds.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "core/clock.h"

namespace llm {

struct BatchCost;

struct FittedStepModel {
  double overhead_ns = 0;
  double per_sequence_ns = 0;
  double per_token_ns = 0;
  double token_knee = 0;  // new tokens below which the GEMMs cost as much as at the knee
  double per_context_token_ns = 0;
  double per_attention_pair_ns = 0;
  double per_sample_ns = 0;
  double sample_knee = 0;     // sampled sequences below which the LM head costs as at the knee
  double multi_token_ns = 0;  // added to every step of two or more new tokens
};

// The term values of one batch, in the order of the coefficients above (overhead's is 1).
struct StepFeatures {
  static constexpr int kCount = 7;
  double values[kCount];
};
StepFeatures step_features(const BatchCost& batch, double token_knee, double sample_knee);

// The modelled time, at least 1 ns for a non-empty batch and 0 for an empty one.
Nanos fitted_step_time_ns(const FittedStepModel& model, const BatchCost& batch);

// The model with every cost coefficient multiplied by `factor` (> 0; the knees unchanged): every
// step priced `factor` times as high, up to rounding.
FittedStepModel scaled_step_model(const FittedStepModel& model, double factor);

// "" when the model can price steps (finite, non-negative coefficients and knees, a positive time
// for the smallest step); else what is wrong, "FIELD: detail".
std::string fitted_model_problem(const FittedStepModel& model);

}  // namespace llm
