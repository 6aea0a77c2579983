#include "server/api/responses_request.h"

#include <nlohmann/json.hpp>

#include "server/api/json_fields.h"
#include "server/api/json_text.h"

namespace llm {
namespace {

using json = nlohmann::json;

[[noreturn]] void unsupported(const std::string& param, const std::string& why) {
  throw_bad_request(param, "'" + param + "' is not supported by this server" + why);
}

bool present(const json& body, const char* key) {
  const auto it = body.find(key);
  return it != body.end() && !it->is_null();
}

// The request fields this endpoint reads or refuses; anything else is ignored (and logged).
bool is_known_field(const std::string& key) {
  static const char* const kKnown[] = {"model",
                                       "input",
                                       "instructions",
                                       "max_output_tokens",
                                       "temperature",
                                       "top_p",
                                       "stream",
                                       "stream_options",
                                       "user",
                                       "metadata",
                                       "store",
                                       "tools",
                                       "tool_choice",
                                       "background",
                                       "previous_response_id",
                                       "conversation",
                                       "prompt",
                                       "include",
                                       "text",
                                       "reasoning",
                                       "top_logprobs",
                                       "truncation",
                                       "parallel_tool_calls",
                                       "max_tool_calls",
                                       "service_tier",
                                       "priority",
                                       "cache_salt",
                                       "safety_identifier",
                                       "prompt_cache_key"};
  for (const char* k : kKnown) {
    if (key == k) return true;
  }
  return false;
}

// Unsupported features: a 400 naming the field unless it holds its neutral value.
// `structured`: the backend answers text.format json_object / json_schema (parse_text_format).
void refuse_unsupported(const json& body, bool structured) {
  if (auto it = body.find("tools"); it != body.end() && !it->is_null()) {
    if (!it->is_array() || !it->empty()) unsupported("tools", "");
  }
  if (auto it = body.find("tool_choice"); it != body.end() && !it->is_null()) {
    if (*it != "none" && *it != "auto") unsupported("tool_choice", " (only \"none\" and \"auto\")");
  }
  if (auto it = body.find("background"); it != body.end() && !it->is_null() && *it != false) {
    unsupported("background", "");
  }
  if (auto it = body.find("store"); it != body.end() && !it->is_null() && *it != false) {
    unsupported("store", ": it keeps no responses (send \"store\": false or leave it out)");
  }
  for (const char* key : {"previous_response_id", "conversation", "prompt"}) {
    if (present(body, key)) unsupported(key, "");
  }
  if (auto it = body.find("include"); it != body.end() && !it->is_null()) {
    if (!it->is_array() || !it->empty()) unsupported("include", "");
  }
  if (auto it = body.find("reasoning"); it != body.end() && !it->is_null()) {
    bool neutral = it->is_object();
    if (neutral) {
      for (const auto& [key, value] : it->items()) neutral = neutral && value.is_null();
    }
    if (!neutral) unsupported("reasoning", "");
  }
  if (auto it = body.find("top_logprobs"); it != body.end() && !it->is_null() && *it != 0) {
    unsupported("top_logprobs", "");
  }
  if (auto it = body.find("text"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) throw_bad_request("text", "'text' must be an object");
    if (auto f = it->find("format"); !structured && f != it->end() && !f->is_null()) {
      if (!f->is_object() || !f->contains("type") || (*f)["type"] != "text") {
        throw_bad_request("text.format",
                          "'text.format' other than {\"type\": \"text\"} is not supported");
      }
    }
  }
  if (auto it = body.find("truncation"); it != body.end() && !it->is_null()) {
    if (*it != "disabled" && *it != "auto") {
      throw_bad_request("truncation", "'truncation' must be \"disabled\" or \"auto\"");
    }
  }
}

// The text of one input item's content: a string, or input_text / output_text parts joined.
std::string item_text(const json& content, const std::string& param) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) {
    throw_bad_request(param, "'" + param + "' must be a string or a list of input_text parts");
  }
  std::string text;
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string p = param + "[" + std::to_string(i) + "]";
    const auto type = part.is_object() ? part.find("type") : part.end();
    if (!part.is_object() || type == part.end() ||
        (*type != "input_text" && *type != "output_text")) {
      throw_bad_request(p,
                        "only input_text and output_text parts are supported in '" + param + "'");
    }
    const auto t = part.find("text");
    if (t == part.end() || !t->is_string())
      throw_bad_request(p + ".text", "'" + p + ".text' must be a string");
    if (!text.empty()) text += "\n";
    text += t->get<std::string>();
  }
  return text;
}

std::vector<ChatMessage> input_messages(const json& body, std::vector<std::string>& ignored) {
  std::vector<ChatMessage> messages;
  if (auto it = body.find("instructions"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) throw_bad_request("instructions", "'instructions' must be a string");
    messages.push_back({"system", it->get<std::string>()});
  }
  const auto input = body.find("input");
  if (input == body.end() || input->is_null()) throw_bad_request("input", "'input' is required");
  if (input->is_string()) {
    messages.push_back({"user", input->get<std::string>()});
    return messages;
  }
  if (!input->is_array() || input->empty()) {
    throw_bad_request("input", "'input' must be a string or a non-empty list of message items");
  }
  for (size_t i = 0; i < input->size(); ++i) {
    const json& item = (*input)[i];
    const std::string p = "input[" + std::to_string(i) + "]";
    if (!item.is_object()) throw_bad_request(p, "'" + p + "' must be an object");
    if (auto type = item.find("type"); type != item.end() && *type != "message") {
      throw_bad_request(p + ".type",
                        "only message items are supported in 'input' ('" + p + ".type')");
    }
    const auto role = item.find("role");
    if (role == item.end() || !role->is_string()) {
      throw_bad_request(p + ".role", "'" + p + "' must have a string 'role'");
    }
    const auto content = item.find("content");
    if (content == item.end()) throw_bad_request(p + ".content", "'" + p + ".content' is required");
    for (const auto& [key, value] : item.items()) {
      if (key != "type" && key != "role" && key != "content") ignored.push_back(p + "." + key);
    }
    messages.push_back({role->get<std::string>(), item_text(*content, p + ".content")});
  }
  return messages;
}

}  // namespace

CompletionRequest parse_responses_request(std::string_view text, const TextCodec& codec,
                                          const ModelInfo& model) {
  const json body = parse_json_body(text);
  CompletionRequest r;
  r.endpoint = Endpoint::kResponses;
  r.model = checked_model(body, model);
  for (const auto& [key, value] : body.items()) {
    if (!is_known_field(key)) r.ignored_fields.push_back(key);
  }
  refuse_unsupported(body, model.structured_outputs);
  if (model.structured_outputs) r.structured = parse_text_format(body);
  parse_scheduling_fields(body, model, r);

  r.max_tokens = optional_int(body, "max_output_tokens", 1, INT64_MAX);
  parse_temperature_and_top_p(body, r);
  r.stream = optional_bool(body, "stream", false);
  parse_user(body, r);
  if (auto it = body.find("metadata"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) throw_bad_request("metadata", "'metadata' must be an object");
    r.responses.metadata_json = dump_json(*it);
  }
  if (auto it = body.find("instructions"); it != body.end() && it->is_string()) {
    r.responses.instructions = it->get<std::string>();
  }

  add_chat_prompt(input_messages(body, r.ignored_fields), true, false, codec, r, "input");
  check_prompts_fit(r, model);
  return r;
}

}  // namespace llm
