// The HTTP layer's exception boundary: which response each kind of escaped exception becomes, and
// a log line a client cannot inject control bytes into.
#include "server/http/handler_errors.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace llm {
namespace {

template <typename E>
ApiError error_of(E e) {
  try {
    throw e;
  } catch (...) {
    return error_of_exception(std::current_exception());
  }
}

TEST(HandlerErrors, EachEscapedExceptionBecomesTheResponseOfItsKind) {
  const ApiError own = error_of(ApiException(ApiError{413, "too big", "prompt", ""}));
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

  const ApiError ours = error_of(std::runtime_error("disk full"));
  EXPECT_EQ(ours.status, 500);
  EXPECT_EQ(ours.message, "Internal server error: disk full");
  EXPECT_EQ(error_of(42).status, 500);  // not even a std::exception
}

TEST(HandlerErrors, TheLogLineEscapesEveryByteThatIsNotPrintableAscii) {
  const std::string line =
      handler_error_log_line("request", "POST", "/v1/\xff\x1b[2J", "bad\nthing\r");
  EXPECT_EQ(line, "llmserve: error in request of POST /v1/\\xff\\x1b[2J: bad\\x0athing\\x0d");
  EXPECT_EQ(handler_error_log_line("I/O handler", "", "", "x"),
            "llmserve: error in I/O handler: x");
  EXPECT_LE(handler_error_log_line("r", "GET", std::string(100000, 'a'), "").size(), 2100u);
}

}  // namespace
}  // namespace llm
