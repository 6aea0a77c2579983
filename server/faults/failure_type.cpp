#include "server/faults/failure_type.h"

#include "core/flag_values.h"

namespace llm {
namespace {

struct FailureTypeInfo {
  FailureType type;
  const char* name;
};

constexpr FailureTypeInfo kFailureTypeInfo[] = {
    {FailureType::kRateLimit, "rate_limit"},
    {FailureType::kServerError, "server_error"},
    {FailureType::kContextLength, "context_length"},
    {FailureType::kInvalidRequest, "invalid_request"},
    {FailureType::kModelNotFound, "model_not_found"},
    {FailureType::kInvalidApiKey, "invalid_api_key"},
};

}  // namespace

const std::vector<FailureType>& all_failure_types() {
  static const std::vector<FailureType> all = [] {
    std::vector<FailureType> types;
    for (const FailureTypeInfo& info : kFailureTypeInfo) types.push_back(info.type);
    return types;
  }();
  return all;
}

const char* failure_type_name(FailureType type) {
  for (const FailureTypeInfo& info : kFailureTypeInfo) {
    if (info.type == type) return info.name;
  }
  return "unknown";
}

std::vector<FailureType> parse_failure_types(const std::string& name, const std::string& text) {
  std::vector<std::string> names;
  for (const FailureTypeInfo& info : kFailureTypeInfo) names.push_back(info.name);
  std::vector<FailureType> types;
  for (const std::string& item : parse_comma_list_flag(name, text)) {
    bool found = false;
    for (const FailureTypeInfo& info : kFailureTypeInfo) {
      if (item == info.name) {
        types.push_back(info.type);
        found = true;
      }
    }
    if (!found) {
      throw UsageError(name + ": unknown failure type '" + item + "' (expected " +
                       choice_list(names) + ")");
    }
  }
  return types;
}

ApiError failure_error(FailureType type, const std::string& model) {
  switch (type) {
    case FailureType::kRateLimit:
      return {429,
              "Rate limit reached for " + model +
                  " in organization org-xxx on requests per min (RPM): Limit 3, Used 3, "
                  "Requested 1.",
              "", "RateLimitError"};
    case FailureType::kServerError:
      return {500, "The server had an error while processing your request (injected failure).", "",
              "InternalServerError"};
    case FailureType::kContextLength:
      return {400,
              "This model's maximum context length is 4096 tokens. However, your messages "
              "resulted in 4500 tokens.",
              "messages", "BadRequestError"};
    case FailureType::kInvalidRequest:
      return {400, "Invalid request: missing required parameter 'model'.", "model",
              "BadRequestError"};
    case FailureType::kModelNotFound:
      return {404, "The model `" + model + "-nonexistent` does not exist.", "model",
              "NotFoundError"};
    case FailureType::kInvalidApiKey:
      return {401, "Incorrect API key provided.", "", "AuthenticationError"};
  }
  return {500, "injected failure", "", "InternalServerError"};
}

std::string error_type_for_status(int status) {
  switch (status) {
    case 403:
      return "PermissionDeniedError";
    case 409:
      return "ConflictError";
    case 422:
      return "UnprocessableEntityError";
    case 429:
      return "RateLimitError";
    default: {
      const std::string type = default_error_type(status);
      // A client error api_error.h has no name for: the clients' generic 4xx.
      return status < 500 && type == "InternalServerError" ? "BadRequestError" : type;
    }
  }
}

}  // namespace llm
