// Builders for OpenAI's Responses API output: the `response` object (non-streaming body, and the
// snapshot inside the stream's lifecycle events) and the typed Server-Sent Events of a stream
// ("event: <type>\ndata: <json>\n\n", each with its sequence_number): response.created,
// response.in_progress, response.output_item.added, response.content_part.added,
// response.output_text.delta..., response.output_text.done, response.content_part.done,
// response.output_item.done, then response.completed (or response.incomplete when the length
// limit cut the text, with incomplete_details.reason "max_output_tokens"), or an error event.
// One message output item with one output_text part; no [DONE] frame (OpenAI sends none).
// Thread-safety: ResponsesEventWriter is not thread-safe (one per response); the rest are pure
// functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/request_metrics.h"
#include "server/api/api_error.h"
#include "server/api/openai_request.h"

namespace llm {

// What every response object of one request repeats.
struct ResponsesHead {
  std::string id;          // resp_<request id>
  std::string message_id;  // msg_<request id>
  int64_t created_at = 0;  // seconds since the epoch
  std::string model;
  const CompletionRequest* request = nullptr;  // echoed parameters; outlives the head
};

// The result once generation ended.
struct ResponsesOutcome {
  std::string text;
  bool incomplete = false;  // the length limit (max_output_tokens or the context) cut it
  int64_t input_tokens = 0;
  int64_t cached_tokens = 0;
  int64_t output_tokens = 0;
  // With --enable-prompt-tokens-details: prompt tokens this request wrote into the prefix cache
  // (usage.input_tokens_details.cache_write_tokens; chat's prompt_tokens_details
  // .created_cache_tokens). Absent otherwise.
  std::optional<int64_t> cache_write_tokens;
};

// The whole non-streaming body: status "completed" or "incomplete". `metrics` nullopt prints
// "metrics": null (the key is always there, as on the other endpoints).
std::string build_responses_body(const ResponsesHead& head, const ResponsesOutcome& outcome,
                                 const std::optional<PerRequestMetrics>& metrics);

class ResponsesEventWriter {
 public:
  explicit ResponsesEventWriter(ResponsesHead head) : head_(std::move(head)) {}

  // The four opening events (the response in_progress, the empty message and text part).
  void append_start(std::string& out);
  void append_text_delta(std::string& out, std::string_view delta);
  // The closing events. `metrics` (enabled and attributable) goes into the final response with
  // its null fields dropped, as in the other endpoints' final usage chunk.
  void append_finish(std::string& out, const ResponsesOutcome& outcome,
                     const std::optional<PerRequestMetrics>* metrics);
  // A failure mid-stream: an "error" event (code "server_error" for a 5xx).
  void append_error(std::string& out, const ApiError& error);

 private:
  void append_event(std::string& out, std::string_view type, std::string_view body_fields);

  ResponsesHead head_;
  int64_t sequence_number_ = 0;
};

}  // namespace llm
