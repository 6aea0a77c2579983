#include "server/api/responses_response.h"

#include <nlohmann/json.hpp>

#include "server/api/json_text.h"
#include "server/api/openai_response.h"

namespace llm {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json text_part(std::string_view text) {
  ordered_json part;
  part["type"] = "output_text";
  part["text"] = std::string(text);
  part["annotations"] = ordered_json::array();
  part["logprobs"] = ordered_json::array();
  return part;
}

// The message output item; `text` null while in progress (no content yet).
ordered_json message_item(const ResponsesHead& head, const char* status, const std::string* text) {
  ordered_json item;
  item["id"] = head.message_id;
  item["type"] = "message";
  item["status"] = status;
  item["role"] = "assistant";
  item["content"] = text ? ordered_json::array({text_part(*text)}) : ordered_json::array();
  return item;
}

ordered_json usage_object(const ResponsesOutcome& o) {
  ordered_json u;
  u["input_tokens"] = o.input_tokens;
  u["input_tokens_details"] = {{"cached_tokens", o.cached_tokens}};
  if (o.cache_write_tokens) u["input_tokens_details"]["cache_write_tokens"] = *o.cache_write_tokens;
  u["output_tokens"] = o.output_tokens;
  u["output_tokens_details"] = {{"reasoning_tokens", 0}};
  u["total_tokens"] = o.input_tokens + o.output_tokens;
  return u;
}

// The response object: in progress (no outcome yet) or final.
ordered_json response_object(const ResponsesHead& head, const ResponsesOutcome* outcome) {
  const CompletionRequest& r = *head.request;
  ordered_json j;
  j["id"] = head.id;
  j["object"] = "response";
  j["created_at"] = head.created_at;
  j["status"] = !outcome ? "in_progress" : outcome->incomplete ? "incomplete" : "completed";
  j["background"] = false;
  j["error"] = nullptr;
  j["incomplete_details"] = outcome && outcome->incomplete
                                ? ordered_json{{"reason", "max_output_tokens"}}
                                : ordered_json(nullptr);
  j["instructions"] =
      r.responses.instructions ? ordered_json(*r.responses.instructions) : ordered_json(nullptr);
  j["max_output_tokens"] = r.max_tokens ? ordered_json(*r.max_tokens) : ordered_json(nullptr);
  j["max_tool_calls"] = nullptr;
  j["model"] = head.model;
  j["output"] = outcome
                    ? ordered_json::array({message_item(
                          head, outcome->incomplete ? "incomplete" : "completed", &outcome->text)})
                    : ordered_json::array();
  j["parallel_tool_calls"] = true;
  j["previous_response_id"] = nullptr;
  j["reasoning"] = {{"effort", nullptr}, {"summary", nullptr}};
  j["service_tier"] = "default";
  j["store"] = false;
  j["temperature"] = r.temperature;
  j["text"] = {{"format", {{"type", "text"}}}};
  j["tool_choice"] = "auto";
  j["tools"] = ordered_json::array();
  j["top_logprobs"] = 0;
  j["top_p"] = r.top_p;
  j["truncation"] = "disabled";
  j["usage"] = outcome ? usage_object(*outcome) : ordered_json(nullptr);
  j["user"] = r.user.empty() ? ordered_json(nullptr) : ordered_json(r.user);
  j["metadata"] = ordered_json::parse(r.responses.metadata_json);
  return j;
}

// `"item_id":...,"output_index":0,"content_index":0` for the events about the text part.
std::string part_address(const ResponsesHead& head) {
  std::string out = "\"item_id\":";
  append_json_string(out, head.message_id);
  out += ",\"output_index\":0,\"content_index\":0";
  return out;
}

}  // namespace

std::string build_responses_body(const ResponsesHead& head, const ResponsesOutcome& outcome,
                                 const std::optional<PerRequestMetrics>& metrics) {
  std::string out = dump_json(response_object(head, &outcome));
  out.pop_back();  // the closing brace: "metrics" goes last
  out += ",\"metrics\":";
  out += metrics_json(metrics);
  out += '}';
  return out;
}

void ResponsesEventWriter::append_event(std::string& out, std::string_view type,
                                        std::string_view body_fields) {
  out += "event: ";
  out += type;
  out += "\ndata: {\"type\":\"";
  out += type;
  out += "\",\"sequence_number\":";
  out += std::to_string(sequence_number_++);
  out += ',';
  out += body_fields;
  out += "}\n\n";
}

void ResponsesEventWriter::append_start(std::string& out) {
  const std::string in_progress = "\"response\":" + dump_json(response_object(head_, nullptr));
  append_event(out, "response.created", in_progress);
  append_event(out, "response.in_progress", in_progress);
  append_event(
      out, "response.output_item.added",
      "\"output_index\":0,\"item\":" + dump_json(message_item(head_, "in_progress", nullptr)));
  append_event(out, "response.content_part.added",
               part_address(head_) + ",\"part\":" + dump_json(text_part("")));
}

void ResponsesEventWriter::append_text_delta(std::string& out, std::string_view delta) {
  std::string fields = part_address(head_);
  fields += ",\"delta\":";
  append_json_string(fields, delta);
  fields += ",\"logprobs\":[]";
  append_event(out, "response.output_text.delta", fields);
}

void ResponsesEventWriter::append_finish(std::string& out, const ResponsesOutcome& outcome,
                                         const std::optional<PerRequestMetrics>* metrics) {
  std::string text_done = part_address(head_) + ",\"text\":";
  append_json_string(text_done, outcome.text);
  text_done += ",\"logprobs\":[]";
  append_event(out, "response.output_text.done", text_done);
  append_event(out, "response.content_part.done",
               part_address(head_) + ",\"part\":" + dump_json(text_part(outcome.text)));
  const char* status = outcome.incomplete ? "incomplete" : "completed";
  append_event(
      out, "response.output_item.done",
      "\"output_index\":0,\"item\":" + dump_json(message_item(head_, status, &outcome.text)));
  std::string response = dump_json(response_object(head_, &outcome));
  if (metrics) {
    response.pop_back();
    response += ",\"metrics\":";
    response += metrics->has_value() ? metrics_json_without_nulls(**metrics) : "null";
    response += '}';
  }
  append_event(out, outcome.incomplete ? "response.incomplete" : "response.completed",
               "\"response\":" + response);
}

void ResponsesEventWriter::append_error(std::string& out, const ApiError& error) {
  std::string fields = "\"code\":";
  append_json_string(fields, error.status >= 500 ? "server_error" : "invalid_request_error");
  fields += ",\"message\":";
  append_json_string(fields, error.message);
  fields += ",\"param\":";
  if (error.param.empty()) {
    fields += "null";
  } else {
    append_json_string(fields, error.param);
  }
  append_event(out, "error", fields);
}

}  // namespace llm
