// Parsing and validation of /v1/chat/completions and /v1/completions bodies into a
// CompletionRequest: tokenized prompts and sampling parameters, or an ApiException (400 naming the
// field, 404 for an unknown model). Unsupported OpenAI features are refused, never ignored.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/api_error.h"
#include "server/sim_tokenizer.h"

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
  bool ignore_eos = false;
  std::string user;
  bool stream = false;
  bool include_usage = false;
  bool continuous_usage_stats = false;
};

// Throws ApiException. Token-id prompts must lie in [0, tokenizer.vocab_size()).
CompletionRequest parse_completion_request(Endpoint endpoint, std::string_view body,
                                           const SimTokenizer& tokenizer, const ModelInfo& model);

// The per-prompt context check (also used by parse_completion_request): throws the vLLM-style 400
// when the prompt is empty, fills the context, or prompt + max_tokens exceeds it.
void check_context_length(int64_t prompt_len, std::optional<int64_t> max_tokens,
                          int64_t max_model_len, Endpoint endpoint);

}  // namespace llm
