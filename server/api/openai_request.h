// Parsing and validation of /v1/chat/completions and /v1/completions bodies into a
// CompletionRequest: tokenized prompts and sampling parameters, or an ApiException (400 naming the
// field, 404 for an unknown model). Unsupported OpenAI features are refused, never ignored.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/chat_message.h"
#include "server/api/api_error.h"
#include "server/text/text_codec.h"

namespace llm {

enum class Endpoint { kChat, kCompletions };

struct ModelInfo {
  std::string served_name;
  int64_t max_model_len = 0;
};

struct CompletionRequest {
  Endpoint endpoint = Endpoint::kChat;
  std::string model;
  std::vector<std::vector<int32_t>> prompts;  // chat: exactly one (the templated messages)
  std::vector<std::string> prompt_texts;      // the text of each prompt ("" for token-id prompts)
  std::optional<int64_t> max_tokens;          // as the client set it (validated against context)
  int32_t n = 1;
  std::vector<std::string> stop;
  std::vector<int32_t> stop_token_ids;
  std::optional<int64_t> seed;
  double temperature = 1.0;
  double top_p = 1.0;
  int32_t top_k = 0;  // 0 or -1: no cut
  bool ignore_eos = false;
  std::string user;
  bool stream = false;
  bool include_usage = false;
  bool continuous_usage_stats = false;
  // Log-probabilities (server/api/logprobs_json.h), at most kMaxLogprobs top tokens: per output
  // token (completions `logprobs`, chat `top_logprobs` when `logprobs` is true), per prompt token
  // (vLLM's `prompt_logprobs`, which completions `echo` with `logprobs` implies).
  std::optional<int32_t> logprobs;
  std::optional<int32_t> prompt_logprobs;
  bool echo = false;  // completions: the text starts with the prompt (max_tokens 0: only it)
};

inline constexpr int32_t kMaxLogprobs = 20;  // vLLM's default --max-logprobs

// Throws ApiException. Token-id prompts must lie in [0, codec.vocab_size()). Text prompts are
// encoded with vLLM's add_special_tokens defaults (completions true, chat false), which the body
// may override.
CompletionRequest parse_completion_request(Endpoint endpoint, std::string_view body,
                                           const TextCodec& codec, const ModelInfo& model);

// Pieces shared with /tokenize and /detokenize (all throw ApiException naming the field):
// the body as a JSON object; its "model" (the served name when absent; 404 for another one);
// the "messages" list; a list of token ids in the vocabulary.
nlohmann::json parse_json_body(std::string_view body);
std::string checked_model(const nlohmann::json& body, const ModelInfo& model);
std::vector<ChatMessage> parse_chat_messages(const nlohmann::json& body);
std::vector<int32_t> parse_token_ids(const nlohmann::json& list, const TextCodec& codec,
                                     const std::string& param);
// A boolean field; `fallback` when absent or null.
bool optional_bool(const nlohmann::json& body, const char* key, bool fallback);

// The per-prompt context check (also used by parse_completion_request): throws the vLLM-style 400
// when the prompt is empty, fills the context, or prompt + max_tokens exceeds it.
void check_context_length(int64_t prompt_len, std::optional<int64_t> max_tokens,
                          int64_t max_model_len, Endpoint endpoint);

}  // namespace llm
