#include "server/api/sampling_fields.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/python_float.h"
#include "server/api/api_error.h"
#include "server/api/json_fields.h"

namespace llm {
namespace {

using json = nlohmann::json;

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
    *f.out = optional_number(body, f.key, f.neutral);
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

}  // namespace

void parse_logprobs(const json& body, Endpoint endpoint, int64_t vocab_size, CompletionRequest& r) {
  if (auto it = body.find("prompt_logprobs"); it != body.end() && it->is_number() &&
                                              optional_bool(body, "stream", false) &&
                                              (*it > 0 || *it == -1)) {
    throw_bad_request("prompt_logprobs", "`prompt_logprobs` are not available when `stream=True`.");
  }
  r.prompt_logprobs = get_logprobs_count(body, "prompt_logprobs", "prompt", vocab_size);
  if (endpoint == Endpoint::kCompletions) {
    r.echo = optional_bool(body, "echo", false);
    r.logprobs = get_logprobs_count(body, "logprobs", "sample", vocab_size);
    if (r.echo && !r.prompt_logprobs) r.prompt_logprobs = r.logprobs;
    return;
  }
  const bool wanted = optional_bool(body, "logprobs", false);
  auto top = body.find("top_logprobs");
  if (top != body.end() && top->is_number_integer() && (*top == -1 || *top > 0) && !wanted) {
    throw_bad_request("top_logprobs", "when using `top_logprobs`, `logprobs` must be set to true.");
  }
  const std::optional<int32_t> k = get_logprobs_count(body, "top_logprobs", "sample", vocab_size);
  // An explicit "top_logprobs": null asks for none, as in vLLM (its default is 0).
  const bool explicit_null = top != body.end() && top->is_null();
  if (wanted && !explicit_null) r.logprobs = k.value_or(0);
}

void parse_sampling_controls(const json& body, int64_t vocab_size, SamplingControls& c) {
  parse_min_tokens(body, c);
  parse_penalties_and_min_p(body, c);
  parse_logit_bias(body, vocab_size, c);
  parse_allowed_token_ids(body, vocab_size, c);
}

void check_min_tokens(int64_t min_tokens, int64_t max_tokens) {
  if (min_tokens > max_tokens) {
    throw_bad_request("min_tokens", "min_tokens must be less than or equal to max_tokens=" +
                                        std::to_string(max_tokens) + ", got " +
                                        std::to_string(min_tokens) + ".");
  }
}

}  // namespace llm
