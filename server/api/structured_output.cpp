#include "server/api/structured_output.h"

#include <cstdio>

#include "core/rng.h"
#include "server/api/api_error.h"
#include "server/api/schema_json.h"

namespace llm {
namespace {

using json = nlohmann::json;

// A schema outside the supported subset is a 400 naming `field` and the schema's path.
void check_or_refuse(const json& schema, const std::string& field) {
  if (auto why = check_schema(schema)) {
    throw_bad_request(field, "'" + field + "' is not a supported JSON schema: " + *why);
  }
}

std::vector<ToolDefinition> parse_tools(const json& body) {
  std::vector<ToolDefinition> tools;
  const auto it = body.find("tools");
  if (it == body.end() || it->is_null()) return tools;
  if (!it->is_array()) throw_bad_request("tools", "'tools' must be a list of tools");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& t = (*it)[i];
    const std::string p = "tools[" + std::to_string(i) + "]";
    if (!t.is_object() || t.value("type", std::string("function")) != "function" ||
        !t.contains("function") || !t["function"].is_object()) {
      throw_bad_request(p, "'" + p + "' must be {\"type\": \"function\", \"function\": {...}}");
    }
    const json& f = t["function"];
    if (!f.contains("name") || !f["name"].is_string() || f["name"].get<std::string>().empty()) {
      throw_bad_request(p + ".function.name",
                        "'" + p + ".function.name' must be a non-empty string");
    }
    ToolDefinition d;
    d.name = f["name"].get<std::string>();
    d.parameters = json{{"type", "object"}, {"properties", json::object()}};
    if (auto params = f.find("parameters"); params != f.end() && !params->is_null()) {
      if (!params->is_object()) {
        throw_bad_request(p + ".function.parameters",
                          "'" + p + ".function.parameters' must be a JSON schema object");
      }
      check_or_refuse(*params, p + ".function.parameters");
      d.parameters = *params;
    }
    tools.push_back(std::move(d));
  }
  return tools;
}

// tool_choice: "none", "auto", "required" or {"type":"function","function":{"name":...}}; the
// index of a named tool in `named`.
std::string parse_tool_choice(const json& body, const std::vector<ToolDefinition>& tools,
                              std::optional<size_t>& named) {
  const auto it = body.find("tool_choice");
  if (it == body.end() || it->is_null()) return tools.empty() ? "none" : "auto";
  if (it->is_string()) {
    const std::string c = it->get<std::string>();
    if (c != "none" && c != "auto" && c != "required") {
      throw_bad_request(
          "tool_choice",
          "'tool_choice' must be \"none\", \"auto\", \"required\" or a named function");
    }
    if (c != "none" && tools.empty()) {
      throw_bad_request("tool_choice", "When using `tool_choice`, `tools` must be set.");
    }
    return c;
  }
  if (!it->is_object() || !it->contains("function") || !(*it)["function"].is_object() ||
      !(*it)["function"].contains("name") || !(*it)["function"]["name"].is_string()) {
    throw_bad_request("tool_choice",
                      "'tool_choice' must be \"none\", \"auto\", \"required\" or "
                      "{\"type\": \"function\", \"function\": {\"name\": ...}}");
  }
  const std::string name = (*it)["function"]["name"].get<std::string>();
  for (size_t i = 0; i < tools.size(); ++i) {
    if (tools[i].name == name) {
      named = i;
      return "named";
    }
  }
  throw_bad_request("tool_choice", "Tool '" + name + "' has not been passed in `tools`.");
}

std::optional<StructuredOutputSpec> parse_response_format(const json& body) {
  const auto it = body.find("response_format");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_object() || !it->contains("type") || !(*it)["type"].is_string()) {
    throw_bad_request("response_format", "'response_format' must be an object with a 'type'");
  }
  const std::string type = (*it)["type"].get<std::string>();
  if (type == "text") return std::nullopt;
  StructuredOutputSpec spec;
  if (type == "json_object") return spec;
  if (type != "json_schema") {
    throw_bad_request(
        "response_format.type",
        "'response_format.type' must be \"text\", \"json_object\" or \"json_schema\"");
  }
  const auto js = it->find("json_schema");
  if (js == it->end() || !js->is_object()) {
    throw_bad_request("response_format.json_schema",
                      "'response_format.json_schema' is required with type json_schema");
  }
  const auto schema = js->find("schema");
  if (schema == js->end() || schema->is_null()) return spec;  // any JSON object, as json_object
  if (!schema->is_object()) {
    throw_bad_request("response_format.json_schema.schema",
                      "'response_format.json_schema.schema' must be a JSON schema object");
  }
  check_or_refuse(*schema, "response_format.json_schema.schema");
  spec.kind = StructuredOutputSpec::Kind::kJsonSchema;
  spec.schema = *schema;
  return spec;
}

std::string hex32(Rng& rng) {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(rng.next_u64()),
                static_cast<unsigned long long>(rng.next_u64()));
  return buf;
}

// An object of a few word-valued properties: json_object's answer.
json any_object(Rng& rng) {
  static const json kSchema = json::parse(
      R"({"type":"object","required":["answer"],"properties":{"answer":{"type":"string"},)"
      R"("confidence":{"type":"number","minimum":0,"maximum":1},"items":{"type":"array",)"
      R"("items":{"type":"string"},"maxItems":3}}})");
  return generate_conforming(kSchema, rng);
}

}  // namespace

std::optional<StructuredOutputSpec> parse_structured_output(const json& body) {
  std::vector<ToolDefinition> tools = parse_tools(body);
  std::optional<size_t> named;
  const std::string choice = parse_tool_choice(body, tools, named);
  std::optional<StructuredOutputSpec> format = parse_response_format(body);
  if (choice != "none") {
    StructuredOutputSpec spec;
    spec.kind = StructuredOutputSpec::Kind::kToolCall;
    spec.tools = std::move(tools);
    spec.named_tool = named;
    return spec;
  }
  return format;
}

std::optional<StructuredOutputSpec> parse_text_format(const json& body) {
  const auto text = body.find("text");
  if (text == body.end() || !text->is_object()) return std::nullopt;
  const auto f = text->find("format");
  if (f == text->end() || f->is_null()) return std::nullopt;
  if (!f->is_object() || !f->contains("type") || !(*f)["type"].is_string()) {
    throw_bad_request("text.format", "'text.format' must be an object with a 'type'");
  }
  const std::string type = (*f)["type"].get<std::string>();
  if (type == "text") return std::nullopt;
  StructuredOutputSpec spec;
  if (type == "json_object") return spec;
  if (type != "json_schema") {
    throw_bad_request("text.format.type",
                      "'text.format.type' must be \"text\", \"json_object\" or \"json_schema\"");
  }
  const auto schema = f->find("schema");
  if (schema == f->end() || !schema->is_object()) {
    throw_bad_request("text.format.schema", "'text.format.schema' must be a JSON schema object");
  }
  check_or_refuse(*schema, "text.format.schema");
  spec.kind = StructuredOutputSpec::Kind::kJsonSchema;
  spec.schema = *schema;
  return spec;
}

StructuredAnswer make_structured_answer(const StructuredOutputSpec& spec, uint64_t seed,
                                        int32_t index) {
  Rng rng(hash_combine(hash_combine(seed, 0x746f6f6c73ULL), static_cast<uint64_t>(index)));
  StructuredAnswer a;
  switch (spec.kind) {
    case StructuredOutputSpec::Kind::kToolCall: {
      const size_t tool = spec.named_tool ? *spec.named_tool : rng.below(spec.tools.size());
      a.tool_call = true;
      a.tool_call_id = "chatcmpl-tool-" + hex32(rng);
      a.tool_name = spec.tools[tool].name;
      a.text = generate_conforming(spec.tools[tool].parameters, rng).dump();
      a.finish_reason = spec.named_tool ? "stop" : "tool_calls";
      break;
    }
    case StructuredOutputSpec::Kind::kJsonObject:
      a.text = any_object(rng).dump();
      a.finish_reason = "stop";
      break;
    case StructuredOutputSpec::Kind::kJsonSchema:
      a.text = generate_conforming(spec.schema, rng).dump();
      a.finish_reason = "stop";
      break;
  }
  return a;
}

}  // namespace llm
