// The instrumentator's HTTP metrics: handler names, exclusions and status classes (table tests of
// HttpMetrics), then what a live llmserve counts for the statuses its clients got.
#include "server/http/http_metrics.h"

#include <gtest/gtest.h>

#include "core/exposition.h"
#include "server/testing/test_http_client.h"

namespace llm {
namespace {

// The value of a series in an exposition text (-1 when absent).
double value_in(const std::string& text, const std::string& series) {
  const size_t pos = text.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::stod(text.substr(pos + series.size() + 2));
}

std::string requests_series(const std::string& handler, const std::string& method,
                            const std::string& status) {
  return "http_requests_total{handler=\"" + handler + "\",method=\"" + method + "\",status=\"" +
         status + "\"}";
}

TEST(HttpMetrics, HandlersAreRoutesOrNoneAndVllmsExclusionsAreNotCounted) {
  struct Case {
    const char* path;
    int handler;
  };
  const Case cases[] = {
      {"/v1/chat/completions", 0},
      {"/v1/completions", 1},
      {"/v1/responses", 2},
      {"/v1/models", 3},
      {"/tokenize", 4},
      {"/detokenize", 5},
      {"/v1/chat/completions/", 6},  // no such route: "none"
      {"/nope", 6},
      {"/metrics", HttpMetrics::kExcluded},
      {"/v1/metrics", HttpMetrics::kExcluded},  // the instrumentator matches anywhere in the path
      {"/health", HttpMetrics::kExcluded},
      {"/version", HttpMetrics::kExcluded},
      {"/load", HttpMetrics::kExcluded},
      {"/ping", HttpMetrics::kExcluded},
      {"/server_info", HttpMetrics::kExcluded},
  };
  for (const Case& c : cases) EXPECT_EQ(HttpMetrics::handler_of(c.path), c.handler) << c.path;
  EXPECT_EQ(HttpMetrics::method_of("GET"), 0);
  EXPECT_EQ(HttpMetrics::method_of("POST"), 1);
  EXPECT_EQ(HttpMetrics::method_of("DELETE"), HttpMetrics::kExcluded);
}

TEST(HttpMetrics, StatusesAreGroupedByClassAndEverySeriesExistsFromTheStart) {
  prometheus::Registry registry;
  HttpMetrics metrics(registry);
  std::string text = serialize_exposition(registry.Collect());
  EXPECT_EQ(value_in(text, requests_series("/v1/completions", "POST", "5xx")), 0) << text;
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_count"), 0) << text;
  struct Case {
    int status;
    const char* group;
  };
  const Case cases[] = {{200, "2xx"}, {201, "2xx"}, {400, "4xx"}, {404, "4xx"},
                        {499, "4xx"}, {500, "5xx"}, {503, "5xx"}};
  for (const Case& c : cases) {
    HttpMetrics::Exchange e;
    e.handler = HttpMetrics::handler_of("/v1/completions");
    e.method = HttpMetrics::method_of("POST");
    e.status = c.status;
    e.seconds = 0.3;
    e.request_bytes = 100;
    e.response_bytes = 50;
    metrics.record(e);
  }
  text = serialize_exposition(registry.Collect());
  EXPECT_EQ(value_in(text, requests_series("/v1/completions", "POST", "2xx")), 2) << text;
  EXPECT_EQ(value_in(text, requests_series("/v1/completions", "POST", "4xx")), 3) << text;
  EXPECT_EQ(value_in(text, requests_series("/v1/completions", "POST", "5xx")), 2) << text;
  const std::string by_route = "{handler=\"/v1/completions\",method=\"POST\"}";
  EXPECT_EQ(value_in(text, "http_request_duration_seconds_count" + by_route), 7);
  // 0.3 s is above the 0.1 bound and within 0.5 (bounds printed as Python floats).
  EXPECT_EQ(value_in(text,
                     "http_request_duration_seconds_bucket{handler=\"/v1/completions\","
                     "le=\"0.1\",method=\"POST\"}"),
            0);
  EXPECT_EQ(value_in(text,
                     "http_request_duration_seconds_bucket{handler=\"/v1/completions\","
                     "le=\"0.5\",method=\"POST\"}"),
            7);
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_bucket{le=\"0.25\"}"), 0);
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_bucket{le=\"0.5\"}"), 7);
  EXPECT_EQ(value_in(text, "http_request_size_bytes_sum{handler=\"/v1/completions\"}"), 700);
  EXPECT_EQ(value_in(text, "http_response_size_bytes_count{handler=\"/v1/completions\"}"), 7);
  EXPECT_NE(text.find("# TYPE http_request_size_bytes summary"), std::string::npos);
}

using testing::Connection;
using testing::request;

const std::string kMetricsChat = R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":3)";

TEST(HttpMetricsServer, CountsTheStatusEachClientGot) {
  ServerOptions options = testing::test_options();
  auto server = testing::start_server(options);
  const uint16_t port = server->port();
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kMetricsChat + "}").status, 200);
  EXPECT_EQ(
      request(port, "POST", "/v1/chat/completions", kMetricsChat + R"(,"stream":true})").status,
      200);
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", "{not json").status, 400);
  EXPECT_EQ(request(port, "GET", "/v1/models").status, 200);
  EXPECT_EQ(request(port, "POST", "/v1/models").status, 405);
  EXPECT_EQ(request(port, "GET", "/nope").status, 404);
  for (const char* excluded : {"/health", "/version", "/metrics", "/v1/metrics"}) {
    request(port, "GET", excluded);
  }
  const std::string text = request(port, "GET", "/metrics").body;
  const std::string chat = "/v1/chat/completions";
  EXPECT_EQ(value_in(text, requests_series(chat, "POST", "2xx")), 2) << text;
  EXPECT_EQ(value_in(text, requests_series(chat, "POST", "4xx")), 1) << text;
  EXPECT_EQ(value_in(text, requests_series(chat, "POST", "5xx")), 0) << text;
  EXPECT_EQ(value_in(text, requests_series("/v1/models", "GET", "2xx")), 1) << text;
  EXPECT_EQ(value_in(text, requests_series("/v1/models", "POST", "4xx")), 1) << text;
  EXPECT_EQ(value_in(text, requests_series("none", "GET", "4xx")), 1) << text;
  // Six counted exchanges; /health, /version and the metrics routes are not counted.
  EXPECT_EQ(value_in(text, "http_request_duration_highr_seconds_count"), 6) << text;
  EXPECT_EQ(value_in(text, "http_request_size_bytes_count{handler=\"" + chat + "\"}"), 3);
  EXPECT_EQ(
      value_in(text, "http_request_size_bytes_sum{handler=\"" + chat + "\"}"),
      static_cast<double>(2 * kMetricsChat.size() + 1 + std::string(R"(,"stream":true})").size() +
                          std::string("{not json").size()));
  EXPECT_EQ(text.find("handler=\"/health\""), std::string::npos);
  EXPECT_EQ(text.find("handler=\"/metrics\""), std::string::npos);
}

TEST(HttpMetricsServer, AClientThatLeavesIsNeverAServerError) {
  ServerOptions options = testing::test_options();
  options.step_time_scale = 1.0;  // a few ms per step: the requests still run when we leave
  auto server = testing::start_server(options);
  const uint16_t port = server->port();
  const std::string slow = R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":2000)";
  {
    Connection streaming(port);  // leaves after the 200 head of its stream: 2xx
    streaming.send_request("POST", "/v1/chat/completions", slow + R"(,"stream":true})");
    ASSERT_TRUE(streaming.read_until("data: "));
  }
  {
    Connection waiting(port);  // leaves before its whole response: nothing sent yet, 4xx
    waiting.send_request("POST", "/v1/chat/completions", slow + "}");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string chat = "/v1/chat/completions";
  std::string text;
  ASSERT_TRUE(testing::eventually([&] {
    text = request(port, "GET", "/metrics").body;
    return value_in(text, "http_request_duration_highr_seconds_count") == 2;
  })) << text;
  EXPECT_EQ(value_in(text, requests_series(chat, "POST", "2xx")), 1) << text;
  EXPECT_EQ(value_in(text, requests_series(chat, "POST", "4xx")), 1) << text;
  EXPECT_EQ(value_in(text, requests_series(chat, "POST", "5xx")), 0) << text;
}

}  // namespace
}  // namespace llm
