// Fits the fitted step-time model (backends/sim/step_model.h) to measured engine steps: for each
// pair of knees on a grid, a least-squares fit of the six non-negative coefficients weighted by
// 1/measured^2 (so every step counts by its relative error, a 5 ms decode as much as a 2 s
// prefill), keeping the pair with the smallest weighted error. Negative coefficients are dropped
// one at a time and the rest refitted. Deterministic: the same samples give the same model.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <vector>

#include "backends/sim/cost_model.h"
#include "backends/sim/engine_profile.h"
#include "backends/sim/step_model.h"
#include "backends/sim/step_noise.h"

namespace llm {

// One measured step: its batch and how long it took.
struct StepSample {
  BatchCost cost;
  double ns = 0;
};

struct StepFit {
  FittedStepModel model;
  ProfileFit quality;                   // relative errors over the samples
  std::vector<double> relative_errors;  // (predicted - measured) / measured, per sample
};

// Throws std::invalid_argument when there are fewer samples than coefficients or a sample's
// time is not positive.
StepFit fit_step_model(const std::vector<StepSample>& samples);

// fit_step_model with every coefficient then scaled by one factor so that the model's times sum
// to the measured ones: unbiased in the mean, for many noisy steps (a step log), whose skew (a
// step is often much slower than usual, never much faster) leaves the relative fit 3-9% low in
// sum, while a replay adds step times up. Throws as fit_step_model.
StepFit fit_step_model_to_total(const std::vector<StepSample>& samples);

// The scatter of `samples` around the model of `fit` (their fit: measured / modelled, from its
// relative_errors), as a profile keeps it, with every ratio then multiplied by one factor so that
// the model's times of the samples times the draws' mean add up to their measured total: a replay
// that draws from it pays, on average, what the steps took, which fit_step_model_to_total gets
// instead by pricing every step higher. (Unweighted, the ratios' mean misses the total where the
// ratios differ between cheap and dear steps: by up to 5% on the 2026-12-06 step logs.) Throws
// std::invalid_argument for a fit of fewer than 2 samples or samples that are not its.
StepTimeNoise step_noise_of_fit(const StepFit& fit, const std::vector<StepSample>& samples);

// What calibrate --step-log fits to an engine's logged steps: with keep_scatter, the model of the
// typical step (fit_step_model) and the scatter around it (step_noise_of_fit); without, the model
// scaled to the steps' total (fit_step_model_to_total) and no scatter. Throws as fit_step_model.
struct StepLogFit {
  StepFit fit;
  std::optional<StepTimeNoise> noise;
};
StepLogFit fit_step_log(const std::vector<StepSample>& samples, bool keep_scatter);

}  // namespace llm
