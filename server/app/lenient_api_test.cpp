// Integration tests of issue 11's API behaviour over loopback: the Content-Type rule, unknown
// fields logged by name, priority reaching the scheduler, cache_salt accepted, the final usage
// chunk without null metrics.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::Connection;
using testing::request;
using testing::start_server;
using testing::test_options;

// A POST with exactly the given Content-Type line ("" = none).
testing::Response post_with_type(uint16_t port, const std::string& path, const std::string& body,
                                 const std::string& content_type) {
  Connection c(port);
  std::string req = "POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  if (!content_type.empty()) req += "Content-Type: " + content_type + "\r\n";
  req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  c.send(req);
  return c.read_response();
}

TEST(LenientApi, APostMustSayItsBodyIsJsonAsVllmRequires) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const std::string body = R"({"prompt":"a","max_tokens":1})";
  struct Case {
    std::string content_type;
    int status;
  };
  const Case cases[] = {
      {"application/json", 200},  {"application/json; charset=utf-8", 200},
      {"Application/JSON", 200},  {"", 400},
      {"text/plain", 400},        {"application/x-www-form-urlencoded", 400},
      {"application/jsonx", 400}, {"application/json-seq", 400},
  };
  for (const Case& c : cases) {
    const testing::Response r = post_with_type(port, "/v1/completions", body, c.content_type);
    EXPECT_EQ(r.status, c.status) << "'" << c.content_type << "': " << r.body;
    if (c.status == 400) {
      const json e = json::parse(r.body)["error"];
      EXPECT_EQ(e["param"], "Content-Type");
      EXPECT_NE(e["message"].get<std::string>().find("Only 'application/json' is allowed"),
                std::string::npos);
    }
  }
  for (const char* path : {"/v1/chat/completions", "/v1/responses", "/tokenize", "/detokenize"}) {
    EXPECT_EQ(post_with_type(port, path, "{}", "text/plain").status, 400) << path;
  }
  // GET routes take no body and need no Content-Type.
  EXPECT_EQ(request(port, "GET", "/v1/models").status, 200);
}

TEST(LenientApi, UnknownFieldsAreServedAndLoggedByNameOnce) {
  auto server = start_server(test_options());
  ::testing::internal::CaptureStderr();
  const testing::Response r =
      request(server->port(), "POST", "/v1/chat/completions",
              R"({"messages":[{"role":"user","content":"secret text","x_msg":1}],"max_tokens":2,
          "x_new_sdk_field":"secret value"})",
              {{"X-Request-Id", "lenient1"}});
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(log.find("request \"lenient1\": ignored fields the server does not know: "
                     "\"x_new_sdk_field\", \"messages[0].x_msg\"\n"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("secret"), std::string::npos) << "no content in the log";
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
}

TEST(LenientApi, TheTokenizerRoutesIgnoreAndNameUnknownFieldsToo) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const std::string plain = request(port, "POST", "/tokenize", R"({"prompt":"Hello there"})").body;
  ::testing::internal::CaptureStderr();
  const testing::Response t = request(
      port, "POST", "/tokenize", R"({"prompt":"Hello there","x_new":1})", {{"X-Request-Id", "t1"}});
  const testing::Response c =
      request(port, "POST", "/tokenize", R"({"messages":[{"role":"user","content":"a","x_m":2}]})",
              {{"X-Request-Id", "t2"}});
  const testing::Response d =
      request(port, "POST", "/detokenize", R"({"tokens":[1],"x_d":3})", {{"X-Request-Id", "t3"}});
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(t.status, 200);
  EXPECT_EQ(t.body, plain) << "an ignored field changes nothing";
  EXPECT_EQ(c.status, 200);
  EXPECT_EQ(d.status, 200);
  EXPECT_NE(log.find("request \"t1\": ignored fields the server does not know: \"x_new\"\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("\"t2\": ignored fields the server does not know: \"messages[0].x_m\"\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("\"t3\": ignored fields the server does not know: \"x_d\"\n"),
            std::string::npos)
      << log;
}

TEST(LenientApi, CacheSaltAndACustomRoleAreServed) {
  auto server = start_server(test_options());
  const testing::Response r = request(
      server->port(), "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"narrator","content":"Once"}],"max_tokens":2,"cache_salt":"t1"})");
  EXPECT_EQ(r.status, 200) << r.body;
}

// Under --scheduling-policy priority, with one seat, the waiting request of the smaller priority
// value runs first whatever the arrival order; under fcfs a non-zero priority is vLLM's 400.
TEST(LenientApi, PriorityOrdersTheWaitingQueueUnderThePriorityPolicy) {
  const std::string log_path = ::testing::TempDir() + "/llmserve_priority_log.jsonl";
  std::remove(log_path.c_str());
  ServerOptions o = test_options();
  o.engine.policy = SchedulingPolicy::kPriority;
  o.engine.max_num_seqs = 1;
  o.step_time_scale = 1.0;
  o.request_log = log_path;
  auto server = start_server(o);
  const uint16_t port = server->port();
  Connection first(port);
  first.send_request("POST", "/v1/completions",
                     R"({"prompt":"a","max_tokens":60,"ignore_eos":true,"stream":true})",
                     {{"X-Request-Id", "first"}});
  ASSERT_TRUE(first.read_until("data: "));  // it holds the seat
  Connection late(port), urgent(port);
  late.send_request("POST", "/v1/completions",
                    R"({"prompt":"b","max_tokens":2,"ignore_eos":true,"priority":5})",
                    {{"X-Request-Id", "late"}});
  urgent.send_request("POST", "/v1/completions",
                      R"({"prompt":"c","max_tokens":2,"ignore_eos":true,"priority":-5})",
                      {{"X-Request-Id", "urgent"}});
  EXPECT_EQ(late.read_response().status, 200);
  EXPECT_EQ(urgent.read_response().status, 200);
  first.read_response();
  server.reset();
  std::vector<std::string> order;
  std::ifstream in(log_path);
  for (std::string line; std::getline(in, line);) {
    order.push_back(json::parse(line)["request_id"]);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"cmpl-first", "cmpl-urgent", "cmpl-late"}));

  auto fcfs = start_server(test_options());
  const testing::Response refused = request(fcfs->port(), "POST", "/v1/completions",
                                            R"({"prompt":"b","max_tokens":2,"priority":5})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(json::parse(refused.body)["error"]["param"], "priority");
}

TEST(LenientApi, TheFinalUsageChunkDropsNullMetricsButTheBodyKeepsThem) {
  ServerOptions o = test_options();
  o.enable_per_request_metrics = true;
  auto server = start_server(o);
  const uint16_t port = server->port();
  // One output token: mean_itl_ms is null.
  const json body = json::parse(
      request(port, "POST", "/v1/completions", R"({"prompt":"a","max_tokens":1})").body);
  ASSERT_TRUE(body["metrics"].contains("mean_itl_ms"));
  EXPECT_TRUE(body["metrics"]["mean_itl_ms"].is_null());
  const testing::Response s = request(port, "POST", "/v1/completions",
                                      R"({"prompt":"a","max_tokens":1,"stream":true,
                  "stream_options":{"include_usage":true}})");
  const size_t at = s.body.find("\"metrics\":");
  ASSERT_NE(at, std::string::npos) << s.body;
  const size_t end = s.body.find('}', at);
  const json metrics = json::parse(s.body.substr(at + 10, end - at - 9));
  EXPECT_FALSE(metrics.contains("mean_itl_ms")) << metrics;
  EXPECT_EQ(metrics.size(), 4u) << metrics;
}

}  // namespace
}  // namespace llm
