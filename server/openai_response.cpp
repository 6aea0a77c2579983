#include "server/openai_response.h"

#include <nlohmann/json.hpp>

namespace llm {
namespace {

using json = nlohmann::ordered_json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json metrics_object(const std::optional<PerRequestMetrics>& m) {
  if (!m) return nullptr;
  json j;
  j["time_to_first_token_ms"] = opt(m->time_to_first_token_ms);
  j["generation_time_ms"] = opt(m->generation_time_ms);
  j["queue_time_ms"] = opt(m->queue_time_ms);
  j["mean_itl_ms"] = opt(m->mean_itl_ms);
  j["tokens_per_second"] = opt(m->tokens_per_second);
  return j;
}

json usage_object(const Usage& u) {
  json j;
  j["prompt_tokens"] = u.prompt_tokens;
  j["total_tokens"] = u.prompt_tokens + u.completion_tokens;
  j["completion_tokens"] = u.completion_tokens;
  return j;
}

json stop_reason(const ChoiceResult& c) {
  if (c.stop_string) return *c.stop_string;
  if (c.stop_token) return *c.stop_token;
  return nullptr;
}

json finish(const ChoiceResult& c) {
  return c.finish_reason.empty() ? json(nullptr) : json(c.finish_reason);
}

json head_object(const ResponseHead& h, bool chunk) {
  json j;
  j["id"] = h.id;
  if (h.endpoint == Endpoint::kChat) {
    j["object"] = chunk ? "chat.completion.chunk" : "chat.completion";
  } else {
    j["object"] = "text_completion";
  }
  j["created"] = h.created;
  j["model"] = h.model;
  return j;
}

std::string frame(const json& j) { return "data: " + j.dump() + "\n\n"; }

}  // namespace

std::string metrics_json(const std::optional<PerRequestMetrics>& m) {
  return metrics_object(m).dump();
}

std::string build_completion_body(const ResponseHead& head,
                                  const std::vector<ChoiceResult>& choices, const Usage& usage,
                                  const std::optional<PerRequestMetrics>& metrics) {
  json j = head_object(head, false);
  json list = json::array();
  for (const ChoiceResult& c : choices) {
    json choice;
    choice["index"] = c.index;
    if (head.endpoint == Endpoint::kChat) {
      choice["message"] = {{"role", "assistant"}, {"content", c.text}};
    } else {
      choice["text"] = c.text;
    }
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = finish(c);
    choice["stop_reason"] = stop_reason(c);
    list.push_back(std::move(choice));
  }
  j["choices"] = std::move(list);
  j["usage"] = usage_object(usage);
  j["metrics"] = metrics_object(metrics);
  return j.dump();
}

std::string build_role_chunk(const ResponseHead& head, int32_t index, const Usage* usage) {
  json j = head_object(head, true);
  json choice;
  choice["index"] = index;
  choice["delta"] = {{"role", "assistant"}, {"content", ""}};
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = nullptr;
  j["choices"] = json::array({std::move(choice)});
  if (usage) j["usage"] = usage_object(*usage);
  return frame(j);
}

std::string build_delta_chunk(const ResponseHead& head, const ChoiceResult& c, const Usage* usage) {
  json j = head_object(head, true);
  json choice;
  choice["index"] = c.index;
  if (head.endpoint == Endpoint::kChat) {
    choice["delta"] = {{"content", c.text}};
  } else {
    choice["text"] = c.text;
  }
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish(c);
  if (!c.finish_reason.empty()) choice["stop_reason"] = stop_reason(c);
  j["choices"] = json::array({std::move(choice)});
  if (usage) j["usage"] = usage_object(*usage);
  return frame(j);
}

std::string build_usage_chunk(const ResponseHead& head, const Usage& usage,
                              const std::optional<PerRequestMetrics>* metrics) {
  json j = head_object(head, true);
  j["choices"] = json::array();
  j["usage"] = usage_object(usage);
  if (metrics) j["metrics"] = metrics_object(*metrics);
  return frame(j);
}

std::string build_error_frame(const ApiError& error) {
  return "data: {\"error\": " + error_object_json(error) + "}\n\n";
}

std::string build_models_body(const std::string& name, int64_t max_model_len, int64_t created) {
  json model;
  model["id"] = name;
  model["object"] = "model";
  model["created"] = created;
  model["owned_by"] = "vllm";
  model["root"] = name;
  model["parent"] = nullptr;
  model["max_model_len"] = max_model_len;
  json j;
  j["object"] = "list";
  j["data"] = json::array({std::move(model)});
  return j.dump();
}

}  // namespace llm
