// Building a profile's step-time scatter (backends/sim/step_noise.h) from measured / modelled
// ratios: their quantiles at the probabilities a calibration keeps. Used by step_fit.cpp.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "backends/sim/step_noise.h"

namespace llm {

// The probabilities a calibration keeps: fine in the tails, where ITL p90 and p99 come from.
const std::vector<double>& step_noise_probabilities();

// The distribution of `ratios` (each > 0 and finite; at least 2) at step_noise_probabilities(),
// each the linearly interpolated quantile (sorted_quantile). Throws std::invalid_argument for
// fewer than 2 ratios or one that is not a positive finite number.
StepTimeNoise step_noise_from_ratios(std::vector<double> ratios);

}  // namespace llm
