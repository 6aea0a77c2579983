#include "server/api/openai_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "server/api/json_fields.h"
#include "server/api/json_text.h"
#include "server/api/request_field_policy.h"
#include "server/api/sampling_fields.h"

namespace llm {
namespace {

using json = nlohmann::json;

std::string message_content(const json& content, size_t index) {
  const std::string param = "messages[" + std::to_string(index) + "].content";
  if (content.is_null()) return {};
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array())
    throw_bad_request(param, "'" + param + "' must be a string or a list of text parts");
  std::string text;
  for (const json& part : content) {
    if (!part.is_object() || string_member(part, "type") != "text" || !part.contains("text") ||
        !part["text"].is_string()) {
      throw_bad_request(param, "only text content parts are supported in '" + param + "'");
    }
    if (!text.empty()) text += "\n";
    text += part["text"].get<std::string>();
  }
  return text;
}

}  // namespace

std::vector<int32_t> parse_token_ids(const json& list, const TextCodec& codec,
                                     const std::string& param) {
  if (!list.is_array())
    throw_bad_request(param, "'" + param + "' must be a list of integer token ids");
  std::vector<int32_t> ids;
  ids.reserve(list.size());
  for (const json& t : list) {
    if (!t.is_number_integer())
      throw_bad_request(param, "'" + param + "' must hold integer token ids");
    const int64_t id =
        t.is_number_unsigned() && t.get<uint64_t>() > INT64_MAX ? INT64_MAX : t.get<int64_t>();
    if (id < 0 || id >= codec.vocab_size()) {
      throw_bad_request(param, "token id " + std::to_string(id) + " in '" + param +
                                   "' is outside the vocabulary [0, " +
                                   std::to_string(codec.vocab_size()) + ")");
    }
    ids.push_back(static_cast<int32_t>(id));
  }
  return ids;
}

void parse_temperature_and_top_p(const json& body, CompletionRequest& r) {
  r.temperature = optional_number(body, "temperature", 1.0);
  if (r.temperature < 0) throw_bad_request("temperature", "'temperature' must be at least 0");
  r.top_p = optional_number(body, "top_p", 1.0);
  if (!(r.top_p > 0 && r.top_p <= 1)) throw_bad_request("top_p", "'top_p' must be in (0, 1]");
}

json parse_json_body(std::string_view text) {
  if (const std::optional<std::string> field = invalid_utf8_field(text)) {
    if (field->empty()) {
      throw_bad_request("", "The request body is not valid UTF-8 (byte " +
                                std::to_string(first_invalid_utf8(text)) + ")");
    }
    throw_bad_request(*field, "'" + *field + "' is not valid UTF-8 text");
  }
  json body;
  try {
    body = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    throw_bad_request("", std::string("The request body is not valid JSON: ") + e.what());
  }
  if (!body.is_object()) throw_bad_request("", "The request body must be a JSON object");
  return body;
}

std::string checked_model(const json& body, const ModelInfo& model) {
  auto it = body.find("model");
  if (it == body.end() || it->is_null()) return model.served_name;
  if (!it->is_string()) throw_bad_request("model", "'model' must be a string");
  std::string name = it->get<std::string>();
  if (name.empty()) return model.served_name;  // vLLM: an empty name is the served model
  if (name != model.served_name &&
      std::find(model.aliases.begin(), model.aliases.end(), name) == model.aliases.end()) {
    throw ApiException(ApiError{404, "The model `" + name + "` does not exist.", "model", ""});
  }
  return name;
}

std::vector<ChatMessage> parse_chat_messages(const json& body, std::vector<std::string>* ignored,
                                             bool allow_tool_calls) {
  auto it = body.find("messages");
  if (it == body.end() || !it->is_array() || it->empty()) {
    throw_bad_request("messages", "'messages' must be a non-empty list");
  }
  std::vector<ChatMessage> messages;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    const std::string p = "messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
      throw_bad_request(p, "'" + p + "' must be an object with a string 'role'");
    }
    // Any role is the chat template's to render or refuse (vLLM passes custom roles through).
    const std::string role = m["role"].get<std::string>();
    if (auto calls = m.find("tool_calls"); !allow_tool_calls && calls != m.end() &&
                                           !calls->is_null() &&
                                           !(calls->is_array() && calls->empty())) {
      throw_bad_request(p + ".tool_calls",
                        "'" + p + ".tool_calls' is not supported by this server");
    }
    for (const auto& [key, value] : m.items()) {
      if (ignored && key != "role" && key != "content" && key != "name" && key != "tool_calls" &&
          !(allow_tool_calls && key == "tool_call_id")) {
        ignored->push_back(p + "." + key);
      }
    }
    messages.push_back({role, message_content(m.value("content", json()), i)});
  }
  return messages;
}

void parse_scheduling_fields(const json& body, const ModelInfo& model, CompletionRequest& r) {
  r.priority =
      static_cast<int32_t>(optional_int(body, "priority", INT32_MIN, INT32_MAX).value_or(0));
  if (r.priority != 0 && !model.priority_scheduling) {
    // vLLM's processor refuses it the same way rather than ignoring it.
    throw_bad_request("priority", "Got priority " + std::to_string(r.priority) +
                                      " but Priority scheduling is not enabled.");
  }
  if (auto it = body.find("cache_salt"); it != body.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>().empty()) {
      throw_bad_request("cache_salt",
                        "Parameter 'cache_salt' must be a non-empty string if provided.");
    }
    r.cache_salt = it->get<std::string>();
  }
}

void add_chat_prompt(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                     bool add_special_tokens, const TextCodec& codec, CompletionRequest& r,
                     const char* param) {
  try {
    r.prompt_texts.push_back(codec.render_chat(messages, add_generation_prompt));
  } catch (const std::invalid_argument& e) {
    throw_bad_request(param, e.what());
  }
  r.prompts.push_back(codec.encode(r.prompt_texts.back(), add_special_tokens));
}

std::string ignored_fields_log_line(const std::string& request_id,
                                    const std::vector<std::string>& fields) {
  if (fields.empty()) return {};
  constexpr size_t kMaxNames = 16;
  constexpr size_t kMaxNameBytes = 64;
  std::string line = "llmserve: request " + json_string_literal(request_id) +
                     ": ignored fields the server does not know:";
  for (size_t i = 0; i < fields.size() && i < kMaxNames; ++i) {
    line += i == 0 ? " " : ", ";
    line += json_string_literal(std::string_view(fields[i]).substr(0, kMaxNameBytes));
  }
  if (fields.size() > kMaxNames) {
    line += " and " + std::to_string(fields.size() - kMaxNames) + " more";
  }
  return line;
}

void check_context_length(int64_t prompt_len, std::optional<int64_t> max_tokens,
                          int64_t max_model_len, Endpoint endpoint) {
  const std::string what = endpoint == Endpoint::kChat        ? "messages"
                           : endpoint == Endpoint::kResponses ? "input"
                                                              : "prompt";
  if (prompt_len == 0) throw_bad_request(what, "The " + what + " is empty (0 tokens).");
  if (prompt_len >= max_model_len) {
    throw_bad_request(what,
                      "This model's maximum context length is " + std::to_string(max_model_len) +
                          " tokens. However, your request has " + std::to_string(prompt_len) +
                          " input tokens. Please reduce the length of the input " + what + ".");
  }
  if (max_tokens && *max_tokens > max_model_len - prompt_len) {
    const std::string field = endpoint == Endpoint::kResponses ? "max_output_tokens" : "max_tokens";
    throw_bad_request(
        field, "'" + field + "' is too large: " + std::to_string(*max_tokens) +
                   ". This model's maximum context length is " + std::to_string(max_model_len) +
                   " tokens and your request has " + std::to_string(prompt_len) +
                   " input tokens (" + std::to_string(*max_tokens) + " > " +
                   std::to_string(max_model_len) + " - " + std::to_string(prompt_len) + ").");
  }
}

namespace {

// n, max_tokens, seed, temperature, top_p, top_k, ignore_eos, include_stop_str_in_output and the
// sampling controls (refused, naming the first, when the backend's sampler lacks them).
void parse_sampling(const json& body, Endpoint endpoint, const TextCodec& tok,
                    const ModelInfo& model, CompletionRequest& r) {
  const int64_t n = optional_int(body, "n", 1, kVllmMaxN).value_or(1);
  if (n > kMaxN) {
    throw_bad_request("n", "'n' must be at most " + std::to_string(kMaxN) +
                               " on this server, got " + std::to_string(n));
  }
  r.n = static_cast<int32_t>(n);
  // vLLM: completions with echo may ask for no new tokens (to score the prompt).
  r.max_tokens = optional_int(body, "max_tokens", r.echo ? 0 : 1, INT64_MAX);
  if (endpoint == Endpoint::kChat) {
    if (auto m = optional_int(body, "max_completion_tokens", 1, INT64_MAX)) r.max_tokens = m;
  }
  r.seed = optional_int(body, "seed", INT64_MIN, INT64_MAX);
  parse_temperature_and_top_p(body, r);
  if (auto k = optional_int(body, "top_k", -1, INT32_MAX)) r.top_k = static_cast<int32_t>(*k);
  r.ignore_eos = optional_bool(body, "ignore_eos", false);
  r.include_stop_str_in_output = optional_bool(body, "include_stop_str_in_output", false);
  parse_sampling_controls(body, tok.vocab_size(), r.controls);
  if (const char* field = r.controls.first_set(); field && !model.full_sampler) {
    throw_bad_request(field, std::string("'") + field + "' is not supported by this backend");
  }
}

// "stream" and "stream_options" (only with stream); unknown options are listed as ignored.
void parse_stream(const json& body, CompletionRequest& r) {
  r.stream = optional_bool(body, "stream", false);
  auto it = body.find("stream_options");
  if (it == body.end() || it->is_null()) return;
  if (!r.stream)
    throw_bad_request("stream_options", "Stream options can only be defined when `stream=True`.");
  if (!it->is_object()) throw_bad_request("stream_options", "'stream_options' must be an object");
  for (const auto& [key, value] : it->items()) {
    if (key != "include_usage" && key != "continuous_usage_stats") {
      r.ignored_fields.push_back("stream_options." + key);  // e.g. include_obfuscation
    }
  }
  r.include_usage = optional_bool(*it, "include_usage", false);
  r.continuous_usage_stats = optional_bool(*it, "continuous_usage_stats", false);
}

// Completions' "prompt" in its four shapes: a string, a list of strings, a list of token ids, a
// list of token-id lists (at most kMaxPrompts of a list).
void parse_completion_prompts(const json& body, const TextCodec& tok, CompletionRequest& r) {
  auto it = body.find("prompt");
  if (it == body.end() || it->is_null()) throw_bad_request("prompt", "'prompt' is required");
  const json& p = *it;
  if (p.is_array() && !p.empty() && !p[0].is_number_integer() && p.size() > kMaxPrompts) {
    throw_bad_request("prompt", "prompt list length " + std::to_string(p.size()) +
                                    " exceeds the maximum allowed count of " +
                                    std::to_string(kMaxPrompts) + ".");
  }
  const bool add_special = optional_bool(body, "add_special_tokens", true);
  auto add_text = [&](const std::string& s) {
    r.prompt_texts.push_back(s);
    r.prompts.push_back(tok.encode(s, add_special));
  };
  if (p.is_string()) {
    add_text(p.get<std::string>());
  } else if (p.is_array() && !p.empty() && p[0].is_string()) {
    for (const json& s : p) {
      if (!s.is_string()) throw_bad_request("prompt", "'prompt' mixes strings and other values");
      add_text(s.get<std::string>());
    }
  } else if (p.is_array() && !p.empty() && p[0].is_number_integer()) {
    r.prompt_texts.emplace_back();
    r.prompts.push_back(parse_token_ids(p, tok, "prompt"));
  } else if (p.is_array() && !p.empty() && p[0].is_array()) {
    for (const json& ids : p) {
      if (!ids.is_array())
        throw_bad_request("prompt", "'prompt' mixes token-id lists and other values");
      r.prompt_texts.emplace_back();
      r.prompts.push_back(parse_token_ids(ids, tok, "prompt"));
    }
  } else {
    throw_bad_request(
        "prompt",
        "'prompt' must be a string, a list of strings, a list of token ids or a list of "
        "token-id lists (non-empty)");
  }
}

}  // namespace

void parse_stop(const json& body, const TextCodec& codec, CompletionRequest& r) {
  if (auto it = body.find("stop"); it != body.end() && !it->is_null()) {
    if (it->is_string()) {
      r.stop.push_back(it->get<std::string>());
    } else if (it->is_array()) {
      for (const json& s : *it) {
        if (!s.is_string())
          throw_bad_request("stop", "'stop' must be a string or a list of strings");
        r.stop.push_back(s.get<std::string>());
      }
    } else {
      throw_bad_request("stop", "'stop' must be a string or a list of strings");
    }
    for (const std::string& s : r.stop) {
      if (s.empty()) throw_bad_request("stop", "'stop' strings must not be empty");
    }
    if (r.stop.size() > kMaxStopStrings) {
      throw_bad_request("stop", "'stop' may hold at most " + std::to_string(kMaxStopStrings) +
                                    " strings, got " + std::to_string(r.stop.size()));
    }
  }
  if (auto it = body.find("stop_token_ids"); it != body.end() && !it->is_null()) {
    r.stop_token_ids = parse_token_ids(*it, codec, "stop_token_ids");
  }
}

void parse_prompts(const json& body, Endpoint endpoint, const TextCodec& codec,
                   CompletionRequest& r) {
  if (endpoint == Endpoint::kChat) {
    const std::vector<ChatMessage> messages =
        parse_chat_messages(body, &r.ignored_fields, r.tool_messages);
    add_chat_prompt(messages, optional_bool(body, "add_generation_prompt", true),
                    optional_bool(body, "add_special_tokens", false), codec, r);
  } else {
    parse_completion_prompts(body, codec, r);
  }
}

void parse_user(const json& body, CompletionRequest& r) {
  if (auto it = body.find("user"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) throw_bad_request("user", "'user' must be a string");
    r.user = it->get<std::string>();
  }
}

void check_prompts_fit(const CompletionRequest& r, const ModelInfo& model) {
  for (const auto& prompt : r.prompts) {
    check_context_length(static_cast<int64_t>(prompt.size()), r.max_tokens, model.max_model_len,
                         r.endpoint);
    check_min_tokens(
        r.controls.min_tokens,
        r.max_tokens.value_or(model.max_model_len - static_cast<int64_t>(prompt.size())));
  }
}

CompletionRequest parse_completion_request(Endpoint endpoint, std::string_view text,
                                           const TextCodec& tok, const ModelInfo& model) {
  const json body = parse_json_body(text);
  CompletionRequest r;
  r.endpoint = endpoint;
  r.model = checked_model(body, model);
  collect_unknown_fields(body, endpoint, r.ignored_fields);
  const bool structured = endpoint == Endpoint::kChat && model.structured_outputs;
  refuse_unsupported_fields(body, endpoint, structured);
  refuse_unimplemented_vllm_fields(body);
  if (structured) r.structured = parse_structured_output(body);
  r.tool_messages = structured;
  parse_scheduling_fields(body, model, r);
  parse_logprobs(body, endpoint, tok.vocab_size(), r);
  if (r.structured && r.logprobs) {
    // The log-probabilities would be those of the sampled tokens, not of the synthetic answer.
    throw_bad_request("logprobs",
                      "'logprobs' cannot be combined with tools or response_format "
                      "on this backend");
  }
  parse_sampling(body, endpoint, tok, model, r);
  parse_user(body, r);
  parse_stop(body, tok, r);
  parse_stream(body, r);
  parse_prompts(body, endpoint, tok, r);
  check_prompts_fit(r, model);
  return r;
}

}  // namespace llm
