// How much a real engine's step times scatter around its fitted step model: the distribution of
// measured / modelled time over the steps a profile was fitted to, kept as that ratio at fixed
// probabilities. A replay draws one ratio per step from it (seeded, so the same profile and seed
// give the same replay) and multiplies the modelled time by it. A deterministic model alone
// prices every step at its typical time, so a replay's step times, and with them ITL and TPOT
// at p90 and above, are narrower than the engine's, and their sum is low by the mean of the
// skew (a step is often much slower than usual, never much faster). docs/cost-model.md.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llm {

struct StepTimeNoise {
  std::vector<double> probabilities;  // increasing, in (0, 1)
  std::vector<double> ratios;         // measured / modelled at each probability, non-decreasing
};

// The ratio at cumulative probability u in [0, 1): linear between the kept probabilities, and the
// first or last ratio beyond them (the tails are not extrapolated).
double step_noise_ratio(const StepTimeNoise& noise, double u);

// The mean ratio of the distribution step_noise_ratio draws from.
double step_noise_mean(const StepTimeNoise& noise);

// "" when the distribution can be drawn from; else "FIELD: detail" (FIELD: probabilities or
// ratios).
std::string step_noise_problem(const StepTimeNoise& noise);

// The ratio for draw number `index` of a stream seeded by `seed`: step_noise_ratio at a uniform
// value hashed from both, so a step's ratio does not depend on what other streams drew.
double step_noise_draw(const StepTimeNoise& noise, uint64_t seed, uint64_t index);

}  // namespace llm
