// The failure types: their names on the command line, and the status, error type and param each
// answers (llm-d-inference-sim's types; server_error a 500 here); the error type X-Return-Error's
// statuses get.
#include "server/faults/failure_type.h"

#include <gtest/gtest.h>

#include "core/flag_values.h"

namespace llm {
namespace {

TEST(FailureType, FailureTypesByName) {
  EXPECT_EQ(parse_failure_types("--failure-types", "rate_limit,invalid_api_key"),
            (std::vector<FailureType>{FailureType::kRateLimit, FailureType::kInvalidApiKey}));
  try {
    parse_failure_types("--failure-types", "rate_limit,oops");
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--failure-types: unknown failure type 'oops'", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(parse_failure_types("--failure-types", "rate_limit,,server_error"), UsageError);
}

TEST(FailureType, EachFailureTypesStatusAndErrorType) {
  const struct {
    FailureType type;
    int status;
    const char* error_type;
    const char* param;
  } table[] = {
      {FailureType::kRateLimit, 429, "RateLimitError", ""},
      {FailureType::kServerError, 500, "InternalServerError", ""},
      {FailureType::kContextLength, 400, "BadRequestError", "messages"},
      {FailureType::kInvalidRequest, 400, "BadRequestError", "model"},
      {FailureType::kModelNotFound, 404, "NotFoundError", "model"},
      {FailureType::kInvalidApiKey, 401, "AuthenticationError", ""},
  };
  ASSERT_EQ(std::size(table), all_failure_types().size());
  for (const auto& row : table) {
    const ApiError e = failure_error(row.type, "m");
    EXPECT_EQ(e.status, row.status) << failure_type_name(row.type);
    EXPECT_EQ(e.type, row.error_type) << failure_type_name(row.type);
    EXPECT_EQ(e.param, row.param) << failure_type_name(row.type);
    EXPECT_FALSE(e.message.empty());
  }
  EXPECT_NE(failure_error(FailureType::kModelNotFound, "llama").message.find("llama"),
            std::string::npos);
  EXPECT_EQ(error_type_for_status(429), "RateLimitError");
  EXPECT_EQ(error_type_for_status(503), "ServiceUnavailableError");
  EXPECT_EQ(error_type_for_status(418), "BadRequestError");
  EXPECT_EQ(error_type_for_status(502), "InternalServerError");
}

}  // namespace
}  // namespace llm
