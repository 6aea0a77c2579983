// Builders for the OpenAI response bodies: chat.completion / text_completion objects, streaming
// chunks (one choice each) as Server-Sent Events, the final usage chunk, the mid-stream error
// frame, and the per-request `metrics` object.
// Thread-safety: pure functions over plain values.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/request_metrics.h"
#include "server/api/api_error.h"
#include "server/api/openai_request.h"

namespace llm {

// usage.prompt_tokens_details (vLLM's PromptTokenUsageInfo): prompt tokens found in the prefix
// cache and prompt tokens this request wrote into it.
struct PromptTokensDetails {
  int64_t cached_tokens = 0;
  int64_t created_cache_tokens = 0;
};

struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  // Only with --enable-prompt-tokens-details (vLLM's flag).
  std::optional<PromptTokensDetails> prompt_tokens_details;
};

struct ChoiceResult {
  int32_t index = 0;
  std::string text;
  std::string finish_reason;               // "stop", "length", "abort", "error"
  std::optional<std::string> stop_string;  // stop_reason when a stop string matched
  std::optional<int32_t> stop_token;       // stop_reason when a stop token id matched
  // Log-probabilities, rendered (server/api/logprobs_json.h): the choice's "logprobs" object (""
  // prints null) and, completions only, vLLM's per-choice "prompt_logprobs" list ("" omits it).
  std::string logprobs;
  std::string prompt_logprobs;
  // Chat's tool calls, rendered (a JSON list): the message's "tool_calls" (its content null when
  // the text is empty), or a streamed delta's "tool_calls" in place of its content. `empty_delta`:
  // a streamed chunk whose delta is {} (a tool call's finish chunk).
  std::string tool_calls;
  bool empty_delta = false;
};

struct ResponseHead {
  Endpoint endpoint = Endpoint::kChat;
  std::string id;  // chatcmpl-<id> / cmpl-<id>
  int64_t created = 0;
  std::string model;
};

// The whole non-streaming body. `metrics` nullopt prints "metrics": null (the key is always there).
// `prompt_logprobs` (chat: vLLM's top-level list, rendered) is printed after usage unless empty.
std::string build_completion_body(const ResponseHead& head,
                                  const std::vector<ChoiceResult>& choices, const Usage& usage,
                                  const std::optional<PerRequestMetrics>& metrics,
                                  std::string_view prompt_logprobs = {});

// Streaming frames, each "data: <json>\n\n".
// The first chat chunk of a choice: delta {"role":"assistant","content":""}.
std::string build_role_chunk(const ResponseHead& head, int32_t index, const Usage* usage);
// A content chunk, or (finish_reason non-empty) the choice's finish chunk with stop_reason.
std::string build_delta_chunk(const ResponseHead& head, const ChoiceResult& choice,
                              const Usage* usage);
// The final usage chunk ("choices": []); metrics only when given (enabled and attributable),
// without its null fields.
std::string build_usage_chunk(const ResponseHead& head, const Usage& usage,
                              const std::optional<PerRequestMetrics>* metrics);
std::string build_error_frame(const ApiError& error);
inline constexpr const char* kDoneFrame = "data: [DONE]\n\n";

// The same frames appended to `out`, for the streaming hot path: `prefix` is
// render_chunk_prefix(head) computed once per response (`data: {"id":...,"model":...,`), so a
// content chunk costs a few appends and no JSON document. Byte-identical to the builders above.
std::string render_chunk_prefix(const ResponseHead& head);
void append_role_chunk(std::string& out, std::string_view prefix, int32_t index,
                       const Usage* usage);
void append_delta_chunk(std::string& out, std::string_view prefix, Endpoint endpoint,
                        const ChoiceResult& choice, const Usage* usage);
void append_usage_chunk(std::string& out, std::string_view prefix, const Usage& usage,
                        const std::optional<PerRequestMetrics>* metrics);
// `s` as a JSON string literal, exactly as nlohmann::json::dump() writes it.
void append_json_string(std::string& out, std::string_view s);

// /v1/models as vLLM lists a model: {"object":"list","data":[...]} with a model card per served
// name in order, each with `root` (the model path), `max_model_len` and one model_permission
// whose id is "modelperm-" followed by a fresh `new_id()`.
std::string build_models_body(const std::vector<std::string>& served_names, const std::string& root,
                              int64_t max_model_len, int64_t created,
                              const std::function<std::string()>& new_id);

// The `metrics` object as JSON text ("null" for nullopt; null fields as JSON null).
std::string metrics_json(const std::optional<PerRequestMetrics>& metrics);
// The `metrics` object without its null fields, as a stream's final usage chunk carries it (vLLM
// drops them there; non-streaming bodies keep them as null).
std::string metrics_json_without_nulls(const PerRequestMetrics& metrics);

}  // namespace llm
