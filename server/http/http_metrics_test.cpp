// What an HttpServer counts in the instrumentator's HTTP metrics (core/http_metrics.h) for the
// statuses its clients got, with a fake handler standing in for llmserve's routes.
#include "core/http_metrics.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "core/exposition.h"
#include "core/testing/exposition_value.h"
#include "server/http/http_server.h"
#include "server/http/testing/fake_http_handler.h"
#include "server/testing/test_http_client.h"

namespace llm {
namespace {

using testing::http_requests_series;
using testing::value_in;

using testing::Connection;
using testing::eventually;
using testing::FakeHandler;
using testing::FakeJob;
using testing::job_result;
using testing::request;
using testing::text_response;

const std::string kMetricsChat = R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":3)";

// llmserve's routes as far as the counting goes: chat completions (400 for a body that is not
// JSON; a stream when it asks for one; with `finish` the job is done at once, else it runs until
// its client leaves), GET /v1/models, the excluded routes, 404 for the rest.
RouteResult metrics_routes(const HttpRequest& req, bool finish) {
  RouteResult result;
  if (req.path == "/v1/chat/completions" && req.method == "POST") {
    if (req.body.rfind("{not", 0) == 0) {
      result.response = text_response(400, "not JSON");
      return result;
    }
    const bool stream = req.body.find("\"stream\":true") != std::string::npos;
    return job_result(std::make_shared<FakeJob>(stream, stream ? "data: x\n\n" : "{}", finish));
  }
  if (req.path == "/v1/models") {
    result.response = req.method == "GET" ? text_response(200, "{}") : text_response(405, "GET");
    return result;
  }
  const bool excluded = req.path == "/health" || req.path == "/version" || req.path == "/metrics" ||
                        req.path == "/v1/metrics";
  result.response = excluded ? text_response(200, "") : text_response(404, "no route");
  return result;
}

// An HttpServer on 127.0.0.1, port 0, counting in its own registry.
struct CountingServer {
  explicit CountingServer(bool finish)
      : metrics(registry),
        handler([finish](const HttpRequest& r) { return metrics_routes(r, finish); }),
        server(handler, config(&metrics)) {
    server.start();
  }
  static HttpServerConfig config(HttpMetrics* metrics) {
    HttpServerConfig c;
    c.port = 0;
    c.metrics = metrics;
    return c;
  }
  std::string exposition() const { return serialize_exposition(registry.Collect()); }

  prometheus::Registry registry;
  HttpMetrics metrics;
  FakeHandler handler;
  HttpServer server;
};

TEST(HttpMetricsServer, CountsTheStatusEachClientGot) {
  CountingServer s(true);
  const uint16_t port = s.server.port();
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kMetricsChat + "}").status, 200);
  EXPECT_EQ(
      request(port, "POST", "/v1/chat/completions", kMetricsChat + R"(,"stream":true})").status,
      200);
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", "{not json").status, 400);
  EXPECT_EQ(request(port, "GET", "/v1/models").status, 200);
  EXPECT_EQ(request(port, "POST", "/v1/models").status, 405);
  EXPECT_EQ(request(port, "GET", "/nope").status, 404);
  for (const char* excluded : {"/health", "/version", "/metrics", "/v1/metrics"}) {
    EXPECT_EQ(request(port, "GET", excluded).status, 200);
  }
  // Six counted exchanges; /health, /version and the metrics routes are not counted. Each is
  // recorded once its response is written, which the client may see first.
  std::string text;
  ASSERT_TRUE(eventually([&] {
    text = s.exposition();
    return value_in(text, "http_request_duration_highr_seconds_count") == 6;
  })) << text;
  text = s.exposition();  // a scrape reads family after family: read again, whole this time
  const std::string chat = "/v1/chat/completions";
  EXPECT_EQ(value_in(text, http_requests_series(chat, "POST", "2xx")), 2) << text;
  EXPECT_EQ(value_in(text, http_requests_series(chat, "POST", "4xx")), 1) << text;
  EXPECT_EQ(value_in(text, http_requests_series(chat, "POST", "5xx")), 0) << text;
  EXPECT_EQ(value_in(text, http_requests_series("/v1/models", "GET", "2xx")), 1) << text;
  EXPECT_EQ(value_in(text, http_requests_series("/v1/models", "POST", "4xx")), 1) << text;
  EXPECT_EQ(value_in(text, http_requests_series("none", "GET", "4xx")), 1) << text;
  EXPECT_EQ(value_in(text, "http_request_size_bytes_count{handler=\"" + chat + "\"}"), 3);
  EXPECT_EQ(
      value_in(text, "http_request_size_bytes_sum{handler=\"" + chat + "\"}"),
      static_cast<double>(2 * kMetricsChat.size() + 1 + std::string(R"(,"stream":true})").size() +
                          std::string("{not json").size()));
  EXPECT_EQ(text.find("handler=\"/health\""), std::string::npos);
  EXPECT_EQ(text.find("handler=\"/metrics\""), std::string::npos);
}

TEST(HttpMetricsServer, AClientThatLeavesIsNeverAServerError) {
  CountingServer s(false);  // the requests still run when their clients leave
  const uint16_t port = s.server.port();
  {
    Connection streaming(port);  // leaves after the 200 head of its stream: 2xx
    streaming.send_request("POST", "/v1/chat/completions", kMetricsChat + R"(,"stream":true})");
    ASSERT_TRUE(streaming.read_until("\r\n\r\n"));
  }
  {
    Connection waiting(port);  // leaves before its whole response: nothing sent yet, 4xx
    waiting.send_request("POST", "/v1/chat/completions", kMetricsChat + "}");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string chat = "/v1/chat/completions";
  std::string text;
  ASSERT_TRUE(eventually([&] {
    text = s.exposition();
    return value_in(text, "http_request_duration_highr_seconds_count") == 2;
  })) << text;
  text = s.exposition();  // a scrape reads family after family: read again, whole this time
  EXPECT_EQ(value_in(text, http_requests_series(chat, "POST", "2xx")), 1) << text;
  EXPECT_EQ(value_in(text, http_requests_series(chat, "POST", "4xx")), 1) << text;
  EXPECT_EQ(value_in(text, http_requests_series(chat, "POST", "5xx")), 0) << text;
}

}  // namespace
}  // namespace llm
