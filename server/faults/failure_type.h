// The failures llmserve injects as a test double (docs/test-double.md): their names on the command
// line and in the admin API, and the error each becomes: the status, vLLM's/OpenAI's error type
// and param, and a message like the one the real server sends. The names and most messages follow
// llm-d-inference-sim's failure types (pkg/llm-d-inference-sim/failures.go); server_error is a 500
// here (InternalServerError, what a crashing vLLM handler answers), where llm-d-inference-sim
// answers 503.
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/api/api_error.h"

namespace llm {

enum class FailureType {
  kRateLimit,       // 429 RateLimitError
  kServerError,     // 500 InternalServerError
  kContextLength,   // 400 BadRequestError, param "messages"
  kInvalidRequest,  // 400 BadRequestError, param "model"
  kModelNotFound,   // 404 NotFoundError, param "model"
  kInvalidApiKey,   // 401 AuthenticationError
};

// Every type, in the order above (what an empty --failure-types means).
const std::vector<FailureType>& all_failure_types();
const char* failure_type_name(FailureType type);  // "rate_limit", ...
// "rate_limit,server_error" as types; UsageError "NAME: unknown failure type 'x' (expected ...)"
// or "NAME: an empty item" otherwise. `name` is the flag or JSON field being read.
std::vector<FailureType> parse_failure_types(const std::string& name, const std::string& text);

// The error a failure of `type` answers, for a server serving `model`.
ApiError failure_error(FailureType type, const std::string& model);

// The error type the OpenAI clients map `status` to (RateLimitError for 429,
// PermissionDeniedError for 403, ...; api_error.h's vLLM names for the others): for X-Return-Error.
std::string error_type_for_status(int status);

}  // namespace llm
