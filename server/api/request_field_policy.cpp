#include "server/api/request_field_policy.h"

#include <nlohmann/json.hpp>
#include <string>

#include "server/api/api_error.h"
#include "server/api/json_fields.h"

namespace llm {
namespace {

using json = nlohmann::json;

// Fields that change nothing for the simulated model and are accepted as vLLM does.
bool is_accepted_noop(const std::string& key) {
  static const char* const kNoop[] = {"metadata", "store", "parallel_tool_calls"};
  for (const char* k : kNoop) {
    if (key == k) return true;
  }
  return false;
}

// vLLM's own request fields that would change the result and that we do not implement: accepted
// only at their neutral value (absent, null, the default, or an empty list or object).
struct NeutralField {
  const char* key;
  const char* neutral;  // the default as JSON text
};
constexpr NeutralField kUnimplementedVllmFields[] = {{"chat_template", "null"},
                                                     {"chat_template_kwargs", "null"},
                                                     {"continue_final_message", "false"},
                                                     {"skip_special_tokens", "true"},
                                                     {"spaces_between_special_tokens", "true"},
                                                     {"truncate_prompt_tokens", "null"},
                                                     {"use_beam_search", "false"},
                                                     {"length_penalty", "1.0"},
                                                     {"bad_words", "null"},
                                                     {"prompt_embeds", "null"},
                                                     {"return_tokens_as_token_ids", "false"},
                                                     {"return_token_ids", "false"},
                                                     {"logits_processors", "null"},
                                                     {"vllm_xargs", "null"},
                                                     {"kv_transfer_params", "null"},
                                                     {"documents", "null"},
                                                     {"mm_processor_kwargs", "null"},
                                                     {"repetition_detection", "null"},
                                                     {"thinking_token_budget", "null"},
                                                     {"logprob_token_ids", "null"}};

// Fields read by parse_scheduling_fields, refused unless neutral, or neutral options of guided
// decoding (which itself is refused): known, so never listed as ignored.
bool is_handled_vllm_field(const std::string& key) {
  for (const NeutralField& f : kUnimplementedVllmFields) {
    if (key == f.key) return true;
  }
  return key == "priority" || key == "cache_salt" || key == "guided_decoding_backend" ||
         key == "guided_whitespace_pattern";
}

}  // namespace

void refuse_unsupported_fields(const json& body, Endpoint endpoint, bool structured_outputs) {
  auto refuse = [](const std::string& key) {
    throw_bad_request(key, "'" + key + "' is not supported by this server");
  };
  for (const char* key :
       {"tools", "tool_choice", "functions", "function_call", "suffix", "guided_json",
        "guided_regex", "guided_choice", "guided_grammar", "structured_outputs", "audio",
        "modalities", "prediction", "reasoning_effort"}) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) continue;
    if (std::string(key) == "tool_choice" && *it == "none") continue;
    if (structured_outputs && (std::string(key) == "tools" || std::string(key) == "tool_choice")) {
      continue;
    }
    refuse(key);
  }
  if (endpoint == Endpoint::kChat) {
    // Chat's echo (prepend the last message) is another feature than completions' echo.
    auto it = body.find("echo");
    if (it != body.end() && !it->is_null() && *it != false) refuse("echo");
  }
  if (auto it = body.find("response_format");
      !structured_outputs && it != body.end() && !it->is_null()) {
    if (!it->is_object() || string_member(*it, "type") != "text") {
      throw_bad_request("response_format",
                        "'response_format' other than {\"type\": \"text\"} is not supported");
    }
  }
  if (auto it = body.find("best_of"); it != body.end() && !it->is_null()) {
    const auto n = body.find("n");
    const json n_value = n == body.end() || n->is_null() ? json(1) : *n;
    if (!it->is_number_integer() || *it != n_value) {
      throw_bad_request("best_of", "'best_of' other than n is not supported");
    }
  }
}

void refuse_unimplemented_vllm_fields(const json& body) {
  for (const NeutralField& f : kUnimplementedVllmFields) {
    const auto it = body.find(f.key);
    if (it == body.end() || it->is_null() || *it == json::parse(f.neutral)) continue;
    if ((it->is_object() || it->is_array()) && it->empty()) continue;
    throw_bad_request(f.key, std::string("'") + f.key + "' is not supported by this server");
  }
}

void collect_unknown_fields(const json& body, Endpoint endpoint,
                            std::vector<std::string>& ignored) {
  static const char* const kCommon[] = {"model",
                                        "max_tokens",
                                        "n",
                                        "stop",
                                        "stop_token_ids",
                                        "include_stop_str_in_output",
                                        "allowed_token_ids",
                                        "min_p",
                                        "repetition_penalty",
                                        "frequency_penalty",
                                        "presence_penalty",
                                        "seed",
                                        "temperature",
                                        "top_p",
                                        "ignore_eos",
                                        "user",
                                        "stream",
                                        "stream_options",
                                        "tools",
                                        "tool_choice",
                                        "functions",
                                        "function_call",
                                        "logprobs",
                                        "top_logprobs",
                                        "prompt_logprobs",
                                        "response_format",
                                        "echo",
                                        "best_of",
                                        "suffix",
                                        "logit_bias",
                                        "guided_json",
                                        "guided_regex",
                                        "guided_choice",
                                        "guided_grammar",
                                        "structured_outputs",
                                        "audio",
                                        "modalities",
                                        "prediction",
                                        "min_tokens",
                                        "reasoning_effort"};
  for (const auto& [key, value] : body.items()) {
    bool known = is_accepted_noop(key) || is_handled_vllm_field(key);
    for (const char* k : kCommon) known = known || key == k;
    known = known || key == "top_k" || key == "add_special_tokens";
    if (endpoint == Endpoint::kChat) {
      known = known || key == "messages" || key == "max_completion_tokens" ||
              key == "add_generation_prompt";
    }
    if (endpoint == Endpoint::kCompletions) known = known || key == "prompt";
    if (!known) ignored.push_back(key);
  }
}

}  // namespace llm
