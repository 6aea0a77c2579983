// What a chat request asks the model to answer in a given shape: a call of one of its `tools`
// (tool_choice "auto", "required" or a named function) or JSON text (response_format json_object
// or json_schema). Only backends that can honour it take it (ModelInfo::structured_outputs: the
// sim backend, whose answers are synthetic but well-formed: server/api/schema_json.h); the others
// refuse the field (server/api/request_field_policy.h).
//
// As vLLM's protocol: tools present and tool_choice absent means "auto"; tool_choice "none" (or no
// tools) leaves the answer free text; a named function must be one of the tools. The answers are
// drawn from the request's seed (or its prompt), one per choice, so the same request gets the
// same answer.
// Thread-safety: pure functions over plain values.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace llm {

struct ToolDefinition {
  std::string name;
  nlohmann::json parameters;  // a JSON Schema ({"type":"object"} when the tool gives none)
};

struct StructuredOutputSpec {
  enum class Kind { kToolCall, kJsonObject, kJsonSchema };
  Kind kind = Kind::kJsonObject;
  std::vector<ToolDefinition> tools;  // kToolCall: the tools to call
  std::optional<size_t> named_tool;   // kToolCall: tool_choice named this one (finish "stop")
  nlohmann::json schema;              // kJsonSchema: the schema of the answer
};

// One choice's synthetic answer: a tool call (its id, name and arguments as JSON text) or the
// JSON text of the content.
struct StructuredAnswer {
  bool tool_call = false;
  std::string tool_call_id;  // "chatcmpl-tool-<32 hex>"
  std::string tool_name;
  std::string text;  // the call's arguments, or the content
  // vLLM's finish_reason: "tool_calls" for auto and required calls, "stop" for a named one and
  // for JSON content.
  std::string finish_reason;
};

// The request's `tools`, `tool_choice` and `response_format` (chat's body), checked: nullopt
// when the answer is free text. Throws ApiException (400 naming the field) for malformed tools,
// an unknown named tool or a schema outside the supported subset.
std::optional<StructuredOutputSpec> parse_structured_output(const nlohmann::json& body);

// The Responses API's `text.format` ({"type": "json_object"} or {"type": "json_schema", "name",
// "schema", "strict"}): nullopt for text or none. Throws ApiException naming "text.format...".
std::optional<StructuredOutputSpec> parse_text_format(const nlohmann::json& body);

// The answer of choice `index`, drawn from `seed`.
StructuredAnswer make_structured_answer(const StructuredOutputSpec& spec, uint64_t seed,
                                        int32_t index);

}  // namespace llm
