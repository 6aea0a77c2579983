// Token sampling from one sequence's logits, as vLLM's sampler does it: greedy (argmax, the lowest
// id on a tie) when temperature < 1e-5; otherwise logits / temperature, then the top-k cut, then
// the top-p (nucleus) cut over the renormalised probabilities, then one draw. The draw's random
// number comes from an Rng seeded by hash(seed, num_output_tokens), so a request recomputed after
// preemption draws the same tokens.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/request.h"

namespace llm {

inline constexpr double kGreedyTemperature = 1e-5;  // below this, sampling is greedy (vLLM)

struct TokenProb {
  int32_t token;
  double prob;
};

// The index of the largest logit (the first one on ties).
int32_t argmax_token(std::span<const float> logits);

// The distribution a non-greedy draw uses: the tokens that survive min-p, top-k and top-p with
// their renormalised probabilities, in increasing token id. Min-p drops the tokens less probable
// than min_p times the likeliest; top-k keeps the k most probable (the lower id on ties); top-p
// then keeps the shortest most-probable-first prefix whose mass reaches top_p (a token stays when
// the mass of the more probable ones is < top_p).
std::vector<TokenProb> sampling_distribution(std::span<const float> logits,
                                             const SamplingParams& params);

// The seed of the draw for a request's next token.
uint64_t sampling_seed(const SamplingParams& params, int64_t num_output_tokens);

// vLLM's min_tokens: while a sequence has fewer than params.min_tokens output tokens, its stop
// tokens (params.stop_token_ids, and `eos_ids` unless ignore_eos) get a logit of -inf so that no
// draw can pick them. Returns whether it masked (false, logits untouched, once it has them).
bool hold_back_stop_tokens(std::span<float> logits, const SamplingParams& params,
                           std::span<const int32_t> eos_ids, int64_t num_output_tokens);

// vLLM's repetition, frequency and presence penalties (SamplingParams) on one sequence's logits,
// given its prompt and output tokens. Returns whether any applies (false: logits untouched).
bool apply_penalties(std::span<float> logits, const SamplingParams& params,
                     std::span<const int32_t> prompt, std::span<const int32_t> output);
bool has_penalties(const SamplingParams& params);

// vLLM's allowed_token_ids (SamplingParams): every other token's logit becomes -inf.
void keep_allowed_tokens(std::span<float> logits, const SamplingParams& params);

// OpenAI's logit_bias (SamplingParams): each listed token's bias added to its logit.
void add_logit_bias(std::span<float> logits, const SamplingParams& params);

// Whether a sequence's logits must be adjusted before its draw (allowed_token_ids, min_tokens'
// mask, logit_bias, penalties), given how many output tokens it has.
bool adjusts_logits(const SamplingParams& params, int64_t num_output_tokens);

// One token: argmax when greedy, else an inverse-CDF draw (in token-id order) from
// sampling_distribution with one uniform number from Rng(seed).
int32_t sample_token(std::span<const float> logits, const SamplingParams& params, uint64_t seed);

}  // namespace llm
