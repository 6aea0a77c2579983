// Log-probabilities from one position's logits, as vLLM computes them in its default
// raw_logprobs mode: the log-softmax of the raw logits (before temperature, top-k and top-p), in
// double precision, the chosen token's value and rank, and the k most likely tokens.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>

#include "core/logprobs.h"

namespace llm {

// `token`'s log-probability and rank (the tokens whose logit is >= its own) and the `k` most
// likely tokens (most likely first, the lower id first on ties; all of them when the vocabulary
// is smaller). REQUIRES: logits non-empty, 0 <= token < logits.size(), k >= 0.
PositionLogprobs position_logprobs(std::span<const float> logits, int32_t token, int32_t k);

}  // namespace llm
