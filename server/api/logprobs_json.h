// Log-probabilities in the OpenAI API's shapes, as vLLM's serving code prints them: the legacy
// completions object {text_offset, token_logprobs, tokens, top_logprobs}, the chat object
// {content: [{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]} and vLLM's
// prompt_logprobs extension ([null, {"<id>": {logprob, rank, decoded_token}}, ...]).
//
// Each position lists its tokens in vLLM's order: the position's own token first, then the k most
// likely ones not already listed; completions print them all (so k + 1 entries, or k when the
// token is among the top k), chat prints the first k. Token text is the single token decoded
// (special tokens included), ill-formed UTF-8 replaced by U+FFFD; text_offset counts code points,
// as Python's len(); log-probabilities below -9999 print as -9999.0 (vLLM's clamp of -inf).
// Thread-safety: pure functions over plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/logprobs.h"
#include "server/text/text_codec.h"

namespace llm {

// One listed token of a position.
struct ShownToken {
  int32_t id = -1;
  std::string text;  // decoded, valid UTF-8
  double logprob = 0;
  int64_t rank = 1;
};

// One position as the API shows it. `entries` is empty and `logprob` unset for the first prompt
// token under echo (nothing predicts it).
struct ShownPosition {
  std::string token;  // the position's token, decoded
  std::optional<double> logprob;
  std::vector<ShownToken> entries;  // the position's own token first, then the top tokens
};

// The first prompt token (echo): its text, no log-probability.
ShownPosition show_unscored(int32_t token, const TextCodec& codec);
// A scored position, its tokens decoded by `codec`.
ShownPosition show_position(const PositionLogprobs& position, const TextCodec& codec);

// `text` with every ill-formed UTF-8 byte replaced by U+FFFD, and its length in code points.
std::string valid_utf8(std::string_view text);
int64_t code_points(std::string_view valid_utf8_text);

// {"text_offset":[...],"token_logprobs":[...],"tokens":[...],"top_logprobs":[...]}; offsets start
// at `initial_text_offset` (a stream's later chunks continue the earlier ones' text).
void append_completion_logprobs(std::string& out, std::span<const ShownPosition> positions,
                                int64_t initial_text_offset);
// {"content":[...]}, each position's top_logprobs holding its first `top_logprobs` entries.
void append_chat_logprobs(std::string& out, std::span<const ShownPosition> positions,
                          int32_t top_logprobs);
// vLLM's prompt_logprobs list: null for position 0, then each position's entries by token id.
void append_prompt_logprobs(std::string& out, std::span<const ShownPosition> scored_positions);

}  // namespace llm
