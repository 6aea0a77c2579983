// The sampling fields of a chat or completions body beyond temperature and top_p, with vLLM's
// ranges and messages (a 400 naming the field): log-probabilities and echo, and the controls
// (min_tokens, the penalties, min_p, logit_bias, allowed_token_ids).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

#include "core/request.h"
#include "server/api/openai_request.h"

namespace llm {

// logprobs, top_logprobs, prompt_logprobs and echo (completions), at most kMaxLogprobs each.
void parse_logprobs(const nlohmann::json& body, Endpoint endpoint, int64_t vocab_size,
                    CompletionRequest& r);
// min_tokens, presence/frequency/repetition penalties, min_p, logit_bias (keys token ids, values
// clamped to [-100, 100]) and allowed_token_ids, each in the vocabulary of `vocab_size` ids.
void parse_sampling_controls(const nlohmann::json& body, int64_t vocab_size, SamplingControls& c);
// min_tokens may not exceed the request's max_tokens (or the context's room when it has none).
void check_min_tokens(int64_t min_tokens, int64_t max_tokens);

}  // namespace llm
