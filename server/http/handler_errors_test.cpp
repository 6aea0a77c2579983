// The HTTP layer's exception boundary: a log line a client cannot inject control bytes into.
#include "server/http/handler_errors.h"

#include <gtest/gtest.h>

#include <string>

namespace llm {
namespace {

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
