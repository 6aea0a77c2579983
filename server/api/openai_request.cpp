#include "server/api/openai_request.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/python_float.h"
#include "server/api/json_text.h"

namespace llm {
namespace {

using json = nlohmann::json;

bool get_bool(const json& body, const char* key, bool fallback) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw_bad_request(key, std::string("'") + key + "' must be a boolean");
  return it->get<bool>();
}

std::optional<int64_t> get_int(const json& body, const char* key, int64_t min_value,
                               int64_t max_value) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer())
    throw_bad_request(key, std::string("'") + key + "' must be an integer");
  if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(max_value)) {
    throw_bad_request(key, std::string("'") + key + "' must be at most " +
                               std::to_string(max_value) + ", got " +
                               std::to_string(it->get<uint64_t>()));
  }
  const int64_t v = it->get<int64_t>();
  if (v < min_value) {
    throw_bad_request(key, std::string("'") + key + "' must be at least " +
                               std::to_string(min_value) + ", got " + std::to_string(v));
  }
  if (v > max_value) {
    throw_bad_request(key, std::string("'") + key + "' must be at most " +
                               std::to_string(max_value) + ", got " + std::to_string(v));
  }
  return v;
}

double get_number(const json& body, const char* key, double fallback) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number()) throw_bad_request(key, std::string("'") + key + "' must be a number");
  return it->get<double>();
}

// obj[key] when it is a string, else "" (absent, null or another type).
std::string string_member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Fields that change nothing for the simulated model and are accepted as vLLM does.
bool is_accepted_noop(const std::string& key) {
  static const char* const kNoop[] = {"metadata", "store", "parallel_tool_calls"};
  for (const char* k : kNoop) {
    if (key == k) return true;
  }
  return false;
}

// Unsupported features: a 400 naming the field unless it holds its neutral value.
void refuse_unsupported(const json& body, Endpoint endpoint) {
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
    refuse(key);
  }
  if (endpoint == Endpoint::kChat) {
    // Chat's echo (prepend the last message) is another feature than completions' echo.
    auto it = body.find("echo");
    if (it != body.end() && !it->is_null() && *it != false) refuse("echo");
  }
  if (auto it = body.find("response_format"); it != body.end() && !it->is_null()) {
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

void refuse_unimplemented_vllm_fields(const json& body) {
  for (const NeutralField& f : kUnimplementedVllmFields) {
    const auto it = body.find(f.key);
    if (it == body.end() || it->is_null() || *it == json::parse(f.neutral)) continue;
    if ((it->is_object() || it->is_array()) && it->empty()) continue;
    throw_bad_request(f.key, std::string("'") + f.key + "' is not supported by this server");
  }
}

// Fields read by parse_scheduling_fields, refused unless neutral, or neutral options of guided
// decoding (which itself is refused): known, so never listed as ignored.
bool is_handled_vllm_field(const std::string& key) {
  for (const NeutralField& f : kUnimplementedVllmFields) {
    if (key == f.key) return true;
  }
  return key == "priority" || key == "cache_salt" || key == "guided_decoding_backend" ||
         key == "guided_whitespace_pattern";
}

// Fields that are neither known nor refused are accepted and ignored, as vLLM does; their names
// go to `ignored` for the request's log line.
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

// A log-probability count as vLLM validates it: an integer, >= 0 or -1 (the whole vocabulary),
// at most kMaxLogprobs. `what` names it in the cap's message ("sample", "prompt").
std::optional<int32_t> get_logprobs_count(const json& body, const char* key, const char* what,
                                          int64_t vocab_size) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer())
    throw_bad_request(key, std::string("`") + key + "` must be an integer.");
  const int64_t v =
      it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX ? INT64_MAX : it->get<int64_t>();
  if (v < -1) throw_bad_request(key, std::string("`") + key + "` must be a positive value or -1.");
  const int64_t wanted = v == -1 ? vocab_size : v;
  if (wanted > kMaxLogprobs) {
    throw_bad_request(key,
                      std::string("Requested ") + what + " logprobs of " + std::to_string(wanted) +
                          ", which is greater than max allowed: " + std::to_string(kMaxLogprobs));
  }
  return static_cast<int32_t>(wanted);
}

// logprobs, top_logprobs, prompt_logprobs and echo, with vLLM's rules and messages.
void parse_logprobs(const json& body, Endpoint endpoint, int64_t vocab_size, CompletionRequest& r) {
  if (auto it = body.find("prompt_logprobs"); it != body.end() && it->is_number() &&
                                              get_bool(body, "stream", false) &&
                                              (*it > 0 || *it == -1)) {
    throw_bad_request("prompt_logprobs", "`prompt_logprobs` are not available when `stream=True`.");
  }
  r.prompt_logprobs = get_logprobs_count(body, "prompt_logprobs", "prompt", vocab_size);
  if (endpoint == Endpoint::kCompletions) {
    r.echo = get_bool(body, "echo", false);
    r.logprobs = get_logprobs_count(body, "logprobs", "sample", vocab_size);
    if (r.echo && !r.prompt_logprobs) r.prompt_logprobs = r.logprobs;
    return;
  }
  const bool wanted = get_bool(body, "logprobs", false);
  auto top = body.find("top_logprobs");
  if (top != body.end() && top->is_number_integer() && (*top == -1 || *top > 0) && !wanted) {
    throw_bad_request("top_logprobs", "when using `top_logprobs`, `logprobs` must be set to true.");
  }
  const std::optional<int32_t> k = get_logprobs_count(body, "top_logprobs", "sample", vocab_size);
  // An explicit "top_logprobs": null asks for none, as in vLLM (its default is 0).
  const bool explicit_null = top != body.end() && top->is_null();
  if (wanted && !explicit_null) r.logprobs = k.value_or(0);
}

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

bool optional_bool(const json& body, const char* key, bool fallback) {
  return get_bool(body, key, fallback);
}

std::optional<int64_t> optional_int(const json& body, const char* key, int64_t min_value,
                                    int64_t max_value) {
  return get_int(body, key, min_value, max_value);
}

void parse_temperature_and_top_p(const json& body, CompletionRequest& r) {
  r.temperature = get_number(body, "temperature", 1.0);
  if (r.temperature < 0) throw_bad_request("temperature", "'temperature' must be at least 0");
  r.top_p = get_number(body, "top_p", 1.0);
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

std::vector<ChatMessage> parse_chat_messages(const json& body, std::vector<std::string>* ignored) {
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
    if (auto calls = m.find("tool_calls");
        calls != m.end() && !calls->is_null() && !(calls->is_array() && calls->empty())) {
      throw_bad_request(p + ".tool_calls",
                        "'" + p + ".tool_calls' is not supported by this server");
    }
    for (const auto& [key, value] : m.items()) {
      if (ignored && key != "role" && key != "content" && key != "name" && key != "tool_calls") {
        ignored->push_back(p + "." + key);
      }
    }
    messages.push_back({role, message_content(m.value("content", json()), i)});
  }
  return messages;
}

void parse_scheduling_fields(const json& body, const ModelInfo& model, CompletionRequest& r) {
  r.priority = static_cast<int32_t>(get_int(body, "priority", INT32_MIN, INT32_MAX).value_or(0));
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

namespace {

void parse_min_tokens(const json& body, SamplingControls& c) {
  auto it = body.find("min_tokens");
  if (it == body.end() || it->is_null()) return;
  if (!it->is_number_integer()) throw_bad_request("min_tokens", "'min_tokens' must be an integer");
  if (!it->is_number_unsigned() && it->get<int64_t>() < 0) {
    throw_bad_request("min_tokens", "min_tokens must be greater than or equal to 0, got " +
                                        std::to_string(it->get<int64_t>()) + ".");
  }
  // Larger than any max_tokens: check_min_tokens refuses it with the max_tokens it exceeds.
  c.min_tokens =
      it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX ? INT64_MAX : it->get<int64_t>();
}

// vLLM's penalties and min_p, with its ranges and messages.
void parse_penalties_and_min_p(const json& body, SamplingControls& c) {
  struct Bounded {
    const char* key;
    double* out;
    double neutral;
    bool (*in_range)(double);
    const char* range;  // the message after "KEY must be "
  };
  const Bounded fields[] = {
      {"presence_penalty", &c.presence_penalty, 0.0, [](double v) { return v >= -2 && v <= 2; },
       "in [-2, 2]"},
      {"frequency_penalty", &c.frequency_penalty, 0.0, [](double v) { return v >= -2 && v <= 2; },
       "in [-2, 2]"},
      {"repetition_penalty", &c.repetition_penalty, 1.0, [](double v) { return v > 0; },
       "greater than zero"},
      {"min_p", &c.min_p, 0.0, [](double v) { return v >= 0 && v <= 1; }, "in [0, 1]"},
  };
  for (const Bounded& f : fields) {
    *f.out = get_number(body, f.key, f.neutral);
    if (!f.in_range(*f.out)) {
      throw_bad_request(f.key, std::string(f.key) + " must be " + f.range + ", got " +
                                   python_float(*f.out) + ".");
    }
  }
}

// OpenAI's logit_bias as vLLM reads it: keys are token ids (integers as strings), values numbers
// clamped to [-100, 100]; ids outside the vocabulary are a 400 naming them all.
void parse_logit_bias(const json& body, int64_t vocab_size, SamplingControls& c) {
  auto it = body.find("logit_bias");
  if (it == body.end() || it->is_null()) return;
  if (!it->is_object()) {
    throw_bad_request("logit_bias", "'logit_bias' must be an object of token ids to numbers");
  }
  std::map<int64_t, float> bias;
  for (const auto& [key, value] : it->items()) {
    const size_t first = key.find_first_not_of(" \t\n\r\f\v");
    const size_t last = key.find_last_not_of(" \t\n\r\f\v");
    const std::string digits =
        first == std::string::npos ? "" : key.substr(first, last - first + 1);
    const size_t sign = !digits.empty() && (digits[0] == '-' || digits[0] == '+') ? 1 : 0;
    if (digits.size() == sign || digits.size() > sign + 18 ||
        digits.find_first_not_of("0123456789", sign) != std::string::npos) {
      throw_bad_request("logit_bias",
                        "'logit_bias' keys must be token ids, got " + json(key).dump());
    }
    if (!value.is_number()) {
      throw_bad_request("logit_bias", "'logit_bias' values must be numbers, got " + value.dump() +
                                          " for " + json(key).dump());
    }
    bias[std::stoll(digits)] = static_cast<float>(std::clamp(value.get<double>(), -100.0, 100.0));
  }
  std::string outside;
  for (const auto& [id, b] : bias) {
    if (id < 0 || id >= vocab_size) outside += (outside.empty() ? "" : ", ") + std::to_string(id);
  }
  if (!outside.empty()) {
    throw_bad_request("logit_bias", "token_id(s) [" + outside +
                                        "] in logit_bias contain out-of-vocab token ids. "
                                        "Vocabulary size: " +
                                        std::to_string(vocab_size));
  }
  for (const auto& [id, b] : bias) c.logit_bias.emplace_back(static_cast<int32_t>(id), b);
}

// vLLM's allowed_token_ids: a non-empty list of ids in the vocabulary, with its messages.
void parse_allowed_token_ids(const json& body, int64_t vocab_size, SamplingControls& c) {
  auto it = body.find("allowed_token_ids");
  if (it == body.end() || it->is_null()) return;
  if (!it->is_array()) {
    throw_bad_request("allowed_token_ids", "'allowed_token_ids' must be a list of token ids");
  }
  if (it->empty())
    throw_bad_request("allowed_token_ids", "allowed_token_ids is not None and empty!");
  for (const json& id : *it) {
    if (!id.is_number_integer()) {
      throw_bad_request("allowed_token_ids", "'allowed_token_ids' must be a list of token ids");
    }
    if (id.is_number_unsigned() ? id.get<uint64_t>() >= static_cast<uint64_t>(vocab_size)
                                : id.get<int64_t>() < 0 || id.get<int64_t>() >= vocab_size) {
      throw_bad_request("allowed_token_ids", "allowed_token_ids contains out-of-vocab token id!");
    }
    c.allowed_token_ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  std::sort(c.allowed_token_ids.begin(), c.allowed_token_ids.end());
  c.allowed_token_ids.erase(std::unique(c.allowed_token_ids.begin(), c.allowed_token_ids.end()),
                            c.allowed_token_ids.end());
}

void check_min_tokens(int64_t min_tokens, int64_t max_tokens) {
  if (min_tokens > max_tokens) {
    throw_bad_request("min_tokens", "min_tokens must be less than or equal to max_tokens=" +
                                        std::to_string(max_tokens) + ", got " +
                                        std::to_string(min_tokens) + ".");
  }
}

}  // namespace

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

CompletionRequest parse_completion_request(Endpoint endpoint, std::string_view text,
                                           const TextCodec& tok, const ModelInfo& model) {
  const json body = parse_json_body(text);
  CompletionRequest r;
  r.endpoint = endpoint;
  r.model = checked_model(body, model);
  collect_unknown_fields(body, endpoint, r.ignored_fields);
  refuse_unsupported(body, endpoint);
  refuse_unimplemented_vllm_fields(body);
  parse_scheduling_fields(body, model, r);

  parse_logprobs(body, endpoint, tok.vocab_size(), r);

  // Sampling parameters.
  const int64_t n = get_int(body, "n", 1, kVllmMaxN).value_or(1);
  if (n > kMaxN) {
    throw_bad_request("n", "'n' must be at most " + std::to_string(kMaxN) +
                               " on this server, got " + std::to_string(n));
  }
  r.n = static_cast<int32_t>(n);
  // vLLM: completions with echo may ask for no new tokens (to score the prompt).
  r.max_tokens = get_int(body, "max_tokens", r.echo ? 0 : 1, INT64_MAX);
  if (endpoint == Endpoint::kChat) {
    if (auto m = get_int(body, "max_completion_tokens", 1, INT64_MAX)) r.max_tokens = m;
  }
  r.seed = get_int(body, "seed", INT64_MIN, INT64_MAX);
  parse_temperature_and_top_p(body, r);
  if (auto k = get_int(body, "top_k", -1, INT32_MAX)) r.top_k = static_cast<int32_t>(*k);
  r.ignore_eos = get_bool(body, "ignore_eos", false);
  r.include_stop_str_in_output = get_bool(body, "include_stop_str_in_output", false);
  parse_min_tokens(body, r.controls);
  parse_penalties_and_min_p(body, r.controls);
  parse_logit_bias(body, tok.vocab_size(), r.controls);
  parse_allowed_token_ids(body, tok.vocab_size(), r.controls);
  if (const char* field = r.controls.first_set(); field && !model.full_sampler) {
    throw_bad_request(field, std::string("'") + field + "' is not supported by this backend");
  }
  if (auto it = body.find("user"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) throw_bad_request("user", "'user' must be a string");
    r.user = it->get<std::string>();
  }
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
    r.stop_token_ids = parse_token_ids(*it, tok, "stop_token_ids");
  }

  // Streaming.
  r.stream = get_bool(body, "stream", false);
  if (auto it = body.find("stream_options"); it != body.end() && !it->is_null()) {
    if (!r.stream)
      throw_bad_request("stream_options", "Stream options can only be defined when `stream=True`.");
    if (!it->is_object()) throw_bad_request("stream_options", "'stream_options' must be an object");
    for (const auto& [key, value] : it->items()) {
      if (key != "include_usage" && key != "continuous_usage_stats") {
        r.ignored_fields.push_back("stream_options." + key);  // e.g. include_obfuscation
      }
    }
    r.include_usage = get_bool(*it, "include_usage", false);
    r.continuous_usage_stats = get_bool(*it, "continuous_usage_stats", false);
  }

  // Prompts.
  if (endpoint == Endpoint::kChat) {
    const std::vector<ChatMessage> messages = parse_chat_messages(body, &r.ignored_fields);
    add_chat_prompt(messages, get_bool(body, "add_generation_prompt", true),
                    get_bool(body, "add_special_tokens", false), tok, r);
  } else {
    auto it = body.find("prompt");
    if (it == body.end() || it->is_null()) throw_bad_request("prompt", "'prompt' is required");
    const json& p = *it;
    if (p.is_array() && !p.empty() && !p[0].is_number_integer() && p.size() > kMaxPrompts) {
      throw_bad_request("prompt", "prompt list length " + std::to_string(p.size()) +
                                      " exceeds the maximum allowed count of " +
                                      std::to_string(kMaxPrompts) + ".");
    }
    const bool add_special = get_bool(body, "add_special_tokens", true);
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
  for (const auto& prompt : r.prompts) {
    check_context_length(static_cast<int64_t>(prompt.size()), r.max_tokens, model.max_model_len,
                         endpoint);
    check_min_tokens(
        r.controls.min_tokens,
        r.max_tokens.value_or(model.max_model_len - static_cast<int64_t>(prompt.size())));
  }
  return r;
}

}  // namespace llm
