// Parsing and validation of /v1/chat/completions and /v1/completions bodies into a
// CompletionRequest: tokenized prompts and sampling parameters, or an ApiException (400 naming the
// field, 404 for an unknown model). As vLLM: fields we do not know (top-level and per message) are
// accepted and listed in ignored_fields for one log line, and chat roles are the template's to
// judge; but features that would change the result and that we do not implement are refused,
// never ignored. vLLM's limits apply: n <= 16384 (and our own kMaxN), at most 4 stop strings,
// seed within int64, at most 1024 prompts, priority only under --scheduling-policy priority.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/chat_message.h"
#include "core/request.h"
#include "server/api/api_error.h"
#include "server/api/structured_output.h"
#include "server/text/text_codec.h"

namespace llm {

// kResponses: OpenAI's Responses API (server/api/responses_request.h), run as a chat request.
enum class Endpoint { kChat, kCompletions, kResponses };

struct ModelInfo {
  std::string served_name;  // what responses carry
  int64_t max_model_len = 0;
  bool priority_scheduling = false;  // --scheduling-policy priority: "priority" may be non-zero
  std::vector<std::string> aliases;  // further names a request may send (--served-model-name)
  // The backend's sampler takes every SamplingControls (the cuda one none yet).
  bool full_sampler = true;
  // The backend answers chat's tools / tool_choice / response_format with synthetic, well-formed
  // tool calls and JSON (the sim: server/api/structured_output.h); others refuse those fields.
  bool structured_outputs = false;
};

// vLLM's request limits (VLLM_MAX_N_SEQUENCES, VLLM_MAX_STOP_STRINGS,
// VLLM_MAX_COMPLETION_PROMPTS at their defaults) and our own, lower cap on n.
inline constexpr int64_t kVllmMaxN = 16384;
inline constexpr int64_t kMaxN = 128;
inline constexpr size_t kMaxStopStrings = 4;
inline constexpr size_t kMaxPrompts = 1024;

// What a Responses API response echoes from its request (endpoint kResponses only).
struct ResponsesEcho {
  std::optional<std::string> instructions;
  std::string metadata_json = "{}";  // the request's metadata object, as JSON text
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
  // vLLM's: the stop string that ended the text stays in it, and so does the text of the EOS or
  // stop token id that ended the sequence.
  bool include_stop_str_in_output = false;
  std::optional<int64_t> seed;
  double temperature = 1.0;
  double top_p = 1.0;
  int32_t top_k = 0;          // 0 or -1: no cut
  SamplingControls controls;  // min_tokens, min_p, the penalties, logit_bias, allowed_token_ids
  bool ignore_eos = false;
  std::string user;
  bool stream = false;
  bool include_usage = false;
  bool continuous_usage_stats = false;
  int32_t priority = 0;    // lower runs first (--scheduling-policy priority)
  std::string cache_salt;  // keys the prefix cache: requests with different salts share no blocks
  // Fields we accepted without knowing them, as paths ("foo", "messages[1].name"), for the log.
  std::vector<std::string> ignored_fields;
  ResponsesEcho responses;
  // Log-probabilities (server/api/logprobs_json.h), at most kMaxLogprobs top tokens: per output
  // token (completions `logprobs`, chat `top_logprobs` when `logprobs` is true), per prompt token
  // (vLLM's `prompt_logprobs`, which completions `echo` with `logprobs` implies).
  std::optional<int32_t> logprobs;
  std::optional<int32_t> prompt_logprobs;
  bool echo = false;  // completions: the text starts with the prompt (max_tokens 0: only it)
  // Chat on a backend with ModelInfo::structured_outputs: each choice answers with a synthetic
  // tool call or JSON text (server/api/structured_output.h) instead of the sampled text.
  std::optional<StructuredOutputSpec> structured;
  // Chat on such a backend: messages may carry a tool conversation (assistant tool_calls).
  bool tool_messages = false;
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
// Unknown fields of each message are appended to `ignored` (when given) as "messages[i].key".
// An assistant message's "tool_calls" is refused unless `allow_tool_calls` (a backend with
// structured outputs, where a client sends its tool conversation back; the calls are not
// rendered into the prompt).
std::vector<ChatMessage> parse_chat_messages(const nlohmann::json& body,
                                             std::vector<std::string>* ignored = nullptr,
                                             bool allow_tool_calls = false);
std::vector<int32_t> parse_token_ids(const nlohmann::json& list, const TextCodec& codec,
                                     const std::string& param);
// "temperature" (>= 0) and "top_p" (in (0, 1]) into r; 1.0 each when absent.
void parse_temperature_and_top_p(const nlohmann::json& body, CompletionRequest& r);

// The fields every generation endpoint shares (chat, completions, responses), read into `r`:
// "priority" (checked against model.priority_scheduling) and "cache_salt".
void parse_scheduling_fields(const nlohmann::json& body, const ModelInfo& model,
                             CompletionRequest& r);
// The chat prompt of `messages` (the codec's chat template, then encoded) appended to r.prompts
// and r.prompt_texts; a template that cannot express them is a 400 on `param`.
void add_chat_prompt(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                     bool add_special_tokens, const TextCodec& codec, CompletionRequest& r,
                     const char* param = "messages");
// The one log line naming a request's ignored fields (no content), or "" when there are none:
// at most 16 names, each cut to 64 bytes and JSON-quoted so that the line stays one line.
std::string ignored_fields_log_line(const std::string& request_id,
                                    const std::vector<std::string>& fields);

// The per-prompt context check (also used by parse_completion_request): throws the vLLM-style 400
// when the prompt is empty, fills the context, or prompt + max_tokens exceeds it.
void check_context_length(int64_t prompt_len, std::optional<int64_t> max_tokens,
                          int64_t max_model_len, Endpoint endpoint);

// The parts of parse_completion_request, in its order (the responses parser shares parse_user and
// check_prompts_fit):
// "stop" (a string or at most kMaxStopStrings non-empty strings) and "stop_token_ids".
void parse_stop(const nlohmann::json& body, const TextCodec& codec, CompletionRequest& r);
// The prompts into r.prompts and r.prompt_texts: chat's "messages" through the chat template, or
// completions' "prompt" as a string, a list of strings, token ids or token-id lists.
void parse_prompts(const nlohmann::json& body, Endpoint endpoint, const TextCodec& codec,
                   CompletionRequest& r);
// "user", a string.
void parse_user(const nlohmann::json& body, CompletionRequest& r);
// Every prompt fits the context with max_tokens (check_context_length), and min_tokens fits
// max_tokens (or the context's room when there is none).
void check_prompts_fit(const CompletionRequest& r, const ModelInfo& model);

}  // namespace llm
