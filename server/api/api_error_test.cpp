// What an exception that escaped a request's handling becomes: the request's own ApiException as
// it is, a JSON access error 400, anything else 500.
#include "server/api/api_error.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace llm {
namespace {

template <typename E>
ApiError error_of_thrown(E e) {
  try {
    throw e;
  } catch (...) {
    return error_of_exception(std::current_exception());
  }
}

TEST(ApiErrors, EachEscapedExceptionBecomesTheResponseOfItsKind) {
  const ApiError own = error_of_thrown(ApiException(ApiError{413, "too big", "prompt", ""}));
  EXPECT_EQ(own.status, 413);
  EXPECT_EQ(own.param, "prompt");

  nlohmann::json j = nlohmann::json::parse(R"({"n": "two"})");
  ApiError json_error;
  try {
    (void)j["n"].get<int>();
  } catch (...) {
    json_error = error_of_exception(std::current_exception());
  }
  EXPECT_EQ(json_error.status, 400);
  EXPECT_NE(json_error.message.find("Invalid request"), std::string::npos);

  const ApiError ours = error_of_thrown(std::runtime_error("disk full"));
  EXPECT_EQ(ours.status, 500);
  EXPECT_EQ(ours.message, "Internal server error: disk full");
  EXPECT_EQ(error_of_thrown(42).status, 500);  // not even a std::exception
}

}  // namespace
}  // namespace llm
