#include "server/api/render_api.h"

#include <nlohmann/json.hpp>

namespace llm {
namespace {

using json = nlohmann::json;

json sampling_params(const CompletionRequest& r, size_t prompt, int64_t max_model_len) {
  const int64_t room = max_model_len - static_cast<int64_t>(r.prompts[prompt].size());
  json p = json::object();
  p["n"] = r.n;
  p["temperature"] = r.temperature;
  p["top_p"] = r.top_p;
  p["top_k"] = r.top_k;
  p["min_p"] = r.controls.min_p;
  p["presence_penalty"] = r.controls.presence_penalty;
  p["frequency_penalty"] = r.controls.frequency_penalty;
  p["repetition_penalty"] = r.controls.repetition_penalty;
  json bias = nullptr;  // vLLM's {token id: bias}
  for (const auto& [id, b] : r.controls.logit_bias) bias[std::to_string(id)] = b;
  p["logit_bias"] = bias;
  p["allowed_token_ids"] =
      r.controls.allowed_token_ids.empty() ? json(nullptr) : json(r.controls.allowed_token_ids);
  p["seed"] = r.seed ? json(*r.seed) : json(nullptr);
  p["stop"] = r.stop;
  p["stop_token_ids"] = r.stop_token_ids;
  p["ignore_eos"] = r.ignore_eos;
  p["max_tokens"] = r.max_tokens.value_or(room);
  p["min_tokens"] = r.controls.min_tokens;
  p["logprobs"] = r.logprobs ? json(*r.logprobs) : json(nullptr);
  p["prompt_logprobs"] = r.prompt_logprobs ? json(*r.prompt_logprobs) : json(nullptr);
  return p;
}

json generate_request(const CompletionRequest& r, size_t prompt, const std::string& id,
                      int64_t max_model_len) {
  json g = json::object();
  g["request_id"] = id;
  g["token_ids"] = r.prompts[prompt];
  g["features"] = nullptr;
  g["sampling_params"] = sampling_params(r, prompt, max_model_len);
  g["model"] = r.model;
  g["stream"] = r.stream;
  g["stream_options"] = r.stream ? json{{"include_usage", r.include_usage},
                                        {"continuous_usage_stats", r.continuous_usage_stats}}
                                 : json(nullptr);
  g["cache_salt"] = r.cache_salt.empty() ? json(nullptr) : json(r.cache_salt);
  g["priority"] = r.priority;
  g["kv_transfer_params"] = nullptr;
  return g;
}

}  // namespace

std::string render_response(const CompletionRequest& request, const std::string& request_id,
                            int64_t max_model_len) {
  if (request.endpoint == Endpoint::kChat) {
    return generate_request(request, 0, "chatcmpl-" + request_id, max_model_len).dump();
  }
  json list = json::array();
  for (size_t i = 0; i < request.prompts.size(); ++i) {
    const std::string id = "cmpl-" + request_id + (i == 0 ? "" : "-" + std::to_string(i));
    list.push_back(generate_request(request, i, id, max_model_len));
  }
  return list.dump();
}

}  // namespace llm
