#include "server/api/tokenize_api.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "server/api/json_fields.h"
#include "server/api/json_text.h"

namespace llm {
namespace {

using json = nlohmann::json;

void collect_unknown(const json& body, std::initializer_list<const char*> known_fields,
                     std::vector<std::string>* ignored) {
  for (const auto& [key, value] : body.items()) {
    bool known = false;
    for (const char* k : known_fields) known = known || key == k;
    if (!known && ignored) ignored->push_back(key);
  }
}

}  // namespace

std::string tokenize_response(std::string_view text, const TextCodec& codec, const ModelInfo& model,
                              std::vector<std::string>* ignored) {
  const json body = parse_json_body(text);
  checked_model(body, model);
  const bool has_prompt = body.contains("prompt") && !body["prompt"].is_null();
  const bool has_messages = body.contains("messages") && !body["messages"].is_null();
  if (has_prompt == has_messages) {
    throw_bad_request(has_prompt ? "messages" : "prompt",
                      "exactly one of 'prompt' and 'messages' must be given");
  }
  std::vector<int32_t> ids;
  if (has_prompt) {
    collect_unknown(body, {"model", "prompt", "add_special_tokens", "return_token_strs"}, ignored);
    if (!body["prompt"].is_string()) throw_bad_request("prompt", "'prompt' must be a string");
    ids = codec.encode(body["prompt"].get<std::string>(),
                       optional_bool(body, "add_special_tokens", true));
  } else {
    collect_unknown(
        body,
        {"model", "messages", "add_generation_prompt", "add_special_tokens", "return_token_strs"},
        ignored);
    const std::vector<ChatMessage> messages = parse_chat_messages(body, ignored);
    std::string rendered;
    try {
      rendered = codec.render_chat(messages, optional_bool(body, "add_generation_prompt", true));
    } catch (const std::invalid_argument& e) {
      throw_bad_request("messages", e.what());
    }
    ids = codec.encode(rendered, optional_bool(body, "add_special_tokens", false));
  }
  nlohmann::ordered_json out;
  out["count"] = ids.size();
  out["max_model_len"] = model.max_model_len;
  out["tokens"] = ids;
  if (optional_bool(body, "return_token_strs", false)) {
    json strs = json::array();
    for (int32_t id : ids) strs.push_back(codec.token_str(id));
    out["token_strs"] = std::move(strs);
  } else {
    out["token_strs"] = nullptr;
  }
  return dump_json(out);
}

std::string detokenize_response(std::string_view text, const TextCodec& codec,
                                const ModelInfo& model, std::vector<std::string>* ignored) {
  const json body = parse_json_body(text);
  checked_model(body, model);
  collect_unknown(body, {"model", "tokens"}, ignored);
  auto it = body.find("tokens");
  if (it == body.end() || it->is_null()) throw_bad_request("tokens", "'tokens' is required");
  const std::vector<int32_t> ids = parse_token_ids(*it, codec, "tokens");
  json out;
  out["prompt"] = codec.decode(ids);
  return dump_json(out);
}

}  // namespace llm
