// HttpRequest's header lookup: case-insensitive, the first of repeated names, "" when absent; and
// the reason phrases of the statuses a test double may answer.
#include "server/http/http_message.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(HttpMessage, HeaderLookupIgnoresCase) {
  HttpRequest r;
  r.headers = {{"X-Return-Error", "503"}, {"x-fault-ttft", "2s"}, {"X-Return-Error", "429"}};
  EXPECT_EQ(r.header("x-return-error"), "503");
  EXPECT_EQ(r.header("X-FAULT-TTFT"), "2s");
  EXPECT_EQ(r.header("X-Fault-ITL"), "");
  EXPECT_EQ(r.header("X-Return-Erro"), "");
}

TEST(HttpMessage, ReasonPhrases) {
  const struct {
    int status;
    const char* reason;
  } table[] = {{429, "Too Many Requests"},
               {403, "Forbidden"},
               {504, "Gateway Timeout"},
               {418, "Client Error"},
               {599, "Internal Server Error"}};
  for (const auto& row : table) EXPECT_STREQ(http_reason(row.status), row.reason) << row.status;
  EXPECT_EQ(serialize_response(HttpResponse{429, "application/json", "{}", {}}, true)
                .rfind("HTTP/1.1 429 Too Many Requests\r\n", 0),
            0u);
}

}  // namespace
}  // namespace llm
