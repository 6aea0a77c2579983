#include "core/request.h"

#include <algorithm>
#include <stdexcept>

namespace llm {

const char* SamplingControls::first_set() const {
  if (min_tokens != 0) return "min_tokens";
  if (min_p != 0) return "min_p";
  if (repetition_penalty != 1.0) return "repetition_penalty";
  if (frequency_penalty != 0) return "frequency_penalty";
  if (presence_penalty != 0) return "presence_penalty";
  if (!logit_bias.empty()) return "logit_bias";
  if (!allowed_token_ids.empty()) return "allowed_token_ids";
  return nullptr;
}

const char* finish_reason_name(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kAbort:
      return "abort";
    case FinishReason::kError:
      return "error";
    case FinishReason::kNone:
      break;
  }
  return "";
}

int64_t Request::effective_max_tokens(int64_t max_model_len) const {
  int64_t room = std::max<int64_t>(max_model_len - prompt_len, 0);
  return params.max_tokens < 0 ? room : params.max_tokens;
}

void Request::append_output_token(int32_t token) {
  ++num_output_tokens;
  last_output_token = token;
  uint32_t value = static_cast<uint32_t>(token);
  for (int i = 0; i < 4; ++i) {
    output_digest ^= (value >> (8 * i)) & 0xffu;
    output_digest *= 0x100000001b3ULL;
  }
  if (keep_output_tokens) output_tokens.push_back(token);
}

std::vector<std::unique_ptr<Request>> fan_out(const Request& parent_template) {
  std::vector<std::unique_ptr<Request>> children;
  int32_t n = std::max<int32_t>(parent_template.params.n, 1);
  children.reserve(n);
  for (int32_t i = 0; i < n; ++i) {
    auto child = std::make_unique<Request>(parent_template);
    child->parent_id = parent_template.external_id;
    child->child_index = i;
    if (n > 1) {
      child->external_id = std::to_string(i) + "_" + parent_template.external_id;
      child->params.seed = parent_template.params.seed + static_cast<uint64_t>(i);
    }
    children.push_back(std::move(child));
  }
  return children;
}

int32_t sequence_token_at(const Request& r, int64_t pos, const std::string& who) {
  const int64_t prompt = static_cast<int64_t>(r.prompt_tokens.size());
  if (prompt == 0 || prompt != r.prompt_len) {
    throw std::invalid_argument(who + ": request " + r.external_id +
                                " has no prompt token ids (prompt_tokens)");
  }
  if (pos < prompt) return r.prompt_tokens[static_cast<size_t>(pos)];
  const int64_t out = pos - prompt;
  if (out < static_cast<int64_t>(r.output_tokens.size())) {
    return r.output_tokens[static_cast<size_t>(out)];
  }
  if (out == r.num_output_tokens - 1 && r.last_output_token >= 0) return r.last_output_token;
  throw std::invalid_argument(who + ": request " + r.external_id + " needs output token " +
                              std::to_string(out) +
                              " but does not keep its output tokens (set keep_output_tokens)");
}

}  // namespace llm
