#include "server/api/openai_response.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "server/api/json_text.h"

namespace llm {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json opt(const std::optional<double>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json metrics_object(const std::optional<PerRequestMetrics>& m) {
  if (!m) return nullptr;
  ordered_json j;
  j["time_to_first_token_ms"] = opt(m->time_to_first_token_ms);
  j["generation_time_ms"] = opt(m->generation_time_ms);
  j["queue_time_ms"] = opt(m->queue_time_ms);
  j["mean_itl_ms"] = opt(m->mean_itl_ms);
  j["tokens_per_second"] = opt(m->tokens_per_second);
  return j;
}

void append_int(std::string& out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

// `{"id":...,"object":...,"created":N,"model":...,` (the object left open).
void append_head(std::string& out, const ResponseHead& h, bool chunk) {
  out += "{\"id\":";
  append_json_string(out, h.id);
  if (h.endpoint == Endpoint::kChat) {
    out += chunk ? ",\"object\":\"chat.completion.chunk\"" : ",\"object\":\"chat.completion\"";
  } else {
    out += ",\"object\":\"text_completion\"";
  }
  out += ",\"created\":";
  append_int(out, h.created);
  out += ",\"model\":";
  append_json_string(out, h.model);
  out += ',';
}

void append_usage(std::string& out, const Usage& u) {
  out += "{\"prompt_tokens\":";
  append_int(out, u.prompt_tokens);
  out += ",\"total_tokens\":";
  append_int(out, u.prompt_tokens + u.completion_tokens);
  out += ",\"completion_tokens\":";
  append_int(out, u.completion_tokens);
  if (u.prompt_tokens_details) {
    out += ",\"prompt_tokens_details\":{\"cached_tokens\":";
    append_int(out, u.prompt_tokens_details->cached_tokens);
    out += ",\"created_cache_tokens\":";
    append_int(out, u.prompt_tokens_details->created_cache_tokens);
    out += '}';
  }
  out += '}';
}

void append_finish(std::string& out, const ChoiceResult& c) {
  out += ",\"finish_reason\":";
  if (c.finish_reason.empty()) {
    out += "null";
  } else {
    append_json_string(out, c.finish_reason);
  }
}

void append_logprobs(std::string& out, const ChoiceResult& c) {
  out += ",\"logprobs\":";
  out += c.logprobs.empty() ? std::string_view("null") : std::string_view(c.logprobs);
}

void append_stop_reason(std::string& out, const ChoiceResult& c) {
  out += ",\"stop_reason\":";
  if (c.stop_string) {
    append_json_string(out, *c.stop_string);
  } else if (c.stop_token) {
    append_int(out, *c.stop_token);
  } else {
    out += "null";
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const char ch : s) {
    if (static_cast<unsigned char>(ch) >= 0x80) {
      // Non-ASCII: the library writes it, ill-formed bytes as U+FFFD.
      out += json_string_literal(s);
      return;
    }
  }
  out += '"';
  size_t run = 0;  // start of the current run of bytes that need no escaping
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    if (ch >= 0x20 && ch != '"' && ch != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default: {
        const char esc[6] = {'\\', 'u', '0', '0', kHex[ch >> 4], kHex[ch & 15]};
        out.append(esc, 6);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

std::string metrics_json(const std::optional<PerRequestMetrics>& m) {
  return dump_json(metrics_object(m));
}

std::string metrics_json_without_nulls(const PerRequestMetrics& m) {
  ordered_json j = metrics_object(m);
  for (auto it = j.begin(); it != j.end();) {
    it = it->is_null() ? j.erase(it) : std::next(it);
  }
  return dump_json(j);
}

std::string build_completion_body(const ResponseHead& head,
                                  const std::vector<ChoiceResult>& choices, const Usage& usage,
                                  const std::optional<PerRequestMetrics>& metrics,
                                  std::string_view prompt_logprobs) {
  std::string out;
  size_t text_bytes = 0;
  for (const ChoiceResult& c : choices) {
    text_bytes += c.text.size() + c.logprobs.size() + c.prompt_logprobs.size();
  }
  out.reserve(256 + head.id.size() + head.model.size() + text_bytes + 128 * choices.size());
  append_head(out, head, false);
  out += "\"choices\":[";
  for (size_t i = 0; i < choices.size(); ++i) {
    const ChoiceResult& c = choices[i];
    if (i > 0) out += ',';
    out += "{\"index\":";
    append_int(out, c.index);
    if (head.endpoint == Endpoint::kChat) {
      out += ",\"message\":{\"role\":\"assistant\",\"content\":";
      if (c.text.empty() && !c.tool_calls.empty()) {
        out += "null,\"tool_calls\":";
        out += c.tool_calls;
      } else {
        append_json_string(out, c.text);
        if (!c.tool_calls.empty()) {
          out += ",\"tool_calls\":";
          out += c.tool_calls;
        }
      }
      out += '}';
    } else {
      out += ",\"text\":";
      append_json_string(out, c.text);
    }
    append_logprobs(out, c);
    append_finish(out, c);
    append_stop_reason(out, c);
    if (!c.prompt_logprobs.empty()) {
      out += ",\"prompt_logprobs\":";
      out += c.prompt_logprobs;
    }
    out += '}';
  }
  out += "],\"usage\":";
  append_usage(out, usage);
  if (!prompt_logprobs.empty()) {
    out += ",\"prompt_logprobs\":";
    out += prompt_logprobs;
  }
  out += ",\"metrics\":";
  out += metrics ? dump_json(metrics_object(metrics)) : std::string("null");
  out += '}';
  return out;
}

std::string render_chunk_prefix(const ResponseHead& head) {
  std::string out = "data: ";
  append_head(out, head, true);
  return out;
}

void append_role_chunk(std::string& out, std::string_view prefix, int32_t index,
                       const Usage* usage) {
  out += prefix;
  out += "\"choices\":[{\"index\":";
  append_int(out, index);
  out +=
      ",\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
      "\"finish_reason\":null}]";
  if (usage) {
    out += ",\"usage\":";
    append_usage(out, *usage);
  }
  out += "}\n\n";
}

void append_delta_chunk(std::string& out, std::string_view prefix, Endpoint endpoint,
                        const ChoiceResult& c, const Usage* usage) {
  out += prefix;
  out += "\"choices\":[{\"index\":";
  append_int(out, c.index);
  if (endpoint == Endpoint::kChat && c.empty_delta) {
    out += ",\"delta\":{}";
  } else if (endpoint == Endpoint::kChat && !c.tool_calls.empty()) {
    out += ",\"delta\":{\"tool_calls\":";
    out += c.tool_calls;
    out += '}';
  } else if (endpoint == Endpoint::kChat) {
    out += ",\"delta\":{\"content\":";
    append_json_string(out, c.text);
    out += '}';
  } else {
    out += ",\"text\":";
    append_json_string(out, c.text);
  }
  append_logprobs(out, c);
  append_finish(out, c);
  if (!c.finish_reason.empty()) append_stop_reason(out, c);
  out += "}]";
  if (usage) {
    out += ",\"usage\":";
    append_usage(out, *usage);
  }
  out += "}\n\n";
}

void append_usage_chunk(std::string& out, std::string_view prefix, const Usage& usage,
                        const std::optional<PerRequestMetrics>* metrics) {
  out += prefix;
  out += "\"choices\":[],\"usage\":";
  append_usage(out, usage);
  if (metrics) {
    out += ",\"metrics\":";
    out += metrics->has_value() ? metrics_json_without_nulls(**metrics) : std::string("null");
  }
  out += "}\n\n";
}

std::string build_role_chunk(const ResponseHead& head, int32_t index, const Usage* usage) {
  std::string out;
  append_role_chunk(out, render_chunk_prefix(head), index, usage);
  return out;
}

std::string build_delta_chunk(const ResponseHead& head, const ChoiceResult& c, const Usage* usage) {
  std::string out;
  append_delta_chunk(out, render_chunk_prefix(head), head.endpoint, c, usage);
  return out;
}

std::string build_usage_chunk(const ResponseHead& head, const Usage& usage,
                              const std::optional<PerRequestMetrics>* metrics) {
  std::string out;
  append_usage_chunk(out, render_chunk_prefix(head), usage, metrics);
  return out;
}

std::string build_error_frame(const ApiError& error) {
  return "data: {\"error\": " + error_object_json(error) + "}\n\n";
}

std::string build_models_body(const std::vector<std::string>& served_names, const std::string& root,
                              int64_t max_model_len, int64_t created,
                              const std::function<std::string()>& new_id) {
  ordered_json data = ordered_json::array();
  for (const std::string& name : served_names) {
    ordered_json permission;
    permission["id"] = "modelperm-" + new_id();
    permission["object"] = "model_permission";
    permission["created"] = created;
    permission["allow_create_engine"] = false;
    permission["allow_sampling"] = true;
    permission["allow_logprobs"] = true;
    permission["allow_search_indices"] = false;
    permission["allow_view"] = true;
    permission["allow_fine_tuning"] = false;
    permission["organization"] = "*";
    permission["group"] = nullptr;
    permission["is_blocking"] = false;
    ordered_json model;
    model["id"] = name;
    model["object"] = "model";
    model["created"] = created;
    model["owned_by"] = "vllm";
    model["root"] = root;
    model["parent"] = nullptr;
    model["max_model_len"] = max_model_len;
    model["permission"] = ordered_json::array({std::move(permission)});
    data.push_back(std::move(model));
  }
  ordered_json j;
  j["object"] = "list";
  j["data"] = std::move(data);
  return dump_json(j);
}

}  // namespace llm
