// The simulated model's log-probabilities: deterministic pseudo-values, a function of a key (the
// sequence's identity and position) and the run's seed, with no wall clock and no unseeded
// randomness. They are valid as a real model's would be: every value <= 0, the probabilities sum
// to at most 1 (the first is at most 1/2 and each next one at most half the previous), the top
// list is sorted most likely first with distinct ids, and the chosen token sits at its rank (1..4)
// among them, so it is in the top list whenever k >= its rank.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "core/logprobs.h"

namespace llm {

// `token`'s pseudo log-probability and rank and the `k` most likely tokens of a vocabulary of
// `vocab` ids (fewer when the vocabulary is smaller). REQUIRES: 0 <= token < vocab, k >= 0.
PositionLogprobs sim_position_logprobs(uint64_t key, int32_t token, int32_t k, int64_t vocab);

}  // namespace llm
