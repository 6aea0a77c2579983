// llmserve as a test double (server/faults, docs/test-double.md), over HTTP: injected failures
// with their statuses and bodies, chosen by the seed alone and counted in http_requests_total;
// X-Return-Error; added TTFT and ITL, a stalled and a cut stream; /health's startup delay and
// flapping; and the admin API that changes all of it at run time, behind --api-key.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::Connection;
using testing::eventually;
using testing::metric;
using testing::request;
using testing::start_server;
using testing::test_options;

constexpr const char* kDoubleChat =
    R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"ignore_eos":true})";
constexpr const char* kDoubleStream =
    R"({"prompt":"Hello","max_tokens":6,"ignore_eos":true,"stream":true})";

double double_elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

std::vector<int> double_statuses(uint16_t port, int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i)
    out.push_back(request(port, "POST", "/v1/chat/completions", kDoubleChat).status);
  return out;
}

TEST(TestDouble, EachFailureTypeHasItsStatusAndErrorBody) {
  const struct {
    const char* type;
    int status;
    const char* error_type;
  } table[] = {
      {"rate_limit", 429, "RateLimitError"},      {"server_error", 500, "InternalServerError"},
      {"context_length", 400, "BadRequestError"}, {"invalid_request", 400, "BadRequestError"},
      {"model_not_found", 404, "NotFoundError"},  {"invalid_api_key", 401, "AuthenticationError"}};
  for (const auto& row : table) {
    ServerOptions o = test_options();
    o.faults.failure_rate = 1;
    o.faults.failure_types = parse_failure_types("--failure-types", row.type);
    auto server = start_server(o);
    const auto r = request(server->port(), "POST", "/v1/chat/completions", kDoubleChat);
    EXPECT_EQ(r.status, row.status) << row.type;
    const json body = json::parse(r.body);
    EXPECT_EQ(body["error"]["type"], row.error_type) << row.type;
    EXPECT_EQ(body["error"]["code"], row.status) << row.type;
    EXPECT_TRUE(body["error"]["message"].is_string());
    EXPECT_TRUE(body["error"].contains("param"));
    // Only generations fail.
    EXPECT_EQ(request(server->port(), "GET", "/v1/models").status, 200);
    server->shutdown();
  }
}

TEST(TestDouble, InjectedFailuresCountInHttpRequestsTotal) {
  ServerOptions o = test_options();
  o.faults.failure_rate = 1;
  o.faults.failure_types = {FailureType::kRateLimit, FailureType::kServerError};
  auto server = start_server(o);
  const std::vector<int> got = double_statuses(server->port(), 12);
  const auto count = [&got](int status) { return std::count(got.begin(), got.end(), status); };
  ASSERT_EQ(count(429) + count(500), 12);
  const std::string series = R"(http_requests_total{handler="/v1/chat/completions",method="POST",)";
  EXPECT_EQ(metric(server->port(), series + R"(status="4xx"})"), count(429));
  EXPECT_EQ(metric(server->port(), series + R"(status="5xx"})"), count(500));
  server->shutdown();
}

TEST(TestDouble, TheSeedAloneDecidesWhichRequestsFail) {
  auto run = [](uint64_t seed) {
    ServerOptions o = test_options();
    o.faults.failure_rate = 0.5;
    o.faults.seed = seed;
    auto server = start_server(o);
    std::vector<int> got = double_statuses(server->port(), 16);
    server->shutdown();
    return got;
  };
  const std::vector<int> first = run(11);
  EXPECT_EQ(run(11), first);
  EXPECT_NE(run(12), first);
  EXPECT_NE(std::count(first.begin(), first.end(), 200), 0);
  EXPECT_NE(std::count(first.begin(), first.end(), 200), 16);
}

TEST(TestDouble, XReturnErrorForcesAStatus) {
  ServerOptions o = test_options();
  o.enable_fault_headers = true;
  auto server = start_server(o);
  const uint16_t port = server->port();
  for (int status : {429, 503, 418}) {
    const auto r = request(port, "POST", "/v1/chat/completions", kDoubleChat,
                           {{"X-Return-Error", std::to_string(status)}});
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(json::parse(r.body)["error"]["code"], status);
  }
  EXPECT_EQ(json::parse(request(port, "POST", "/v1/completions", R"({"prompt":"x"})",
                                {{"x-return-error", "429"}})
                            .body)["error"]["type"],
            "RateLimitError");
  for (const char* bad : {"200", "abc", "600"}) {
    const auto r =
        request(port, "POST", "/v1/chat/completions", kDoubleChat, {{"X-Return-Error", bad}});
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(json::parse(r.body)["error"]["param"], "X-Return-Error") << bad;
  }
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kDoubleChat).status, 200);
  server->shutdown();
}

TEST(TestDouble, FaultHeadersAreIgnoredUnlessEnabled) {
  ServerOptions o = test_options();
  o.faults.failure_rate = 0;
  o.enable_admin_api = true;  // a test double, but without the headers
  auto server = start_server(o);
  EXPECT_EQ(request(server->port(), "POST", "/v1/chat/completions", kDoubleChat,
                    {{"X-Return-Error", "503"}})
                .status,
            200);
  server->shutdown();
  auto plain = start_server(test_options());
  EXPECT_EQ(request(plain->port(), "POST", "/v1/chat/completions", kDoubleChat,
                    {{"X-Return-Error", "503"}})
                .status,
            200);
  plain->shutdown();
}

TEST(TestDouble, AddedTtftAndItlDelayTheStream) {
  ServerOptions o = test_options();
  o.faults.ttft_ms = 150;
  o.faults.itl_ms = 20;
  auto server = start_server(o);
  Connection c(server->port());
  const auto start = std::chrono::steady_clock::now();
  c.send_request("POST", "/v1/completions", kDoubleStream);
  ASSERT_TRUE(c.read_until("data: {"));
  const double ttft = double_elapsed_ms(start);
  EXPECT_GE(ttft, 150);
  const auto r = c.read_response();
  const double total = double_elapsed_ms(start);
  EXPECT_NE(r.body.find("[DONE]"), std::string::npos);
  // 6 tokens and [DONE] after the first event: at least 6 x 20 ms more.
  EXPECT_GE(total - ttft, 6 * 20 - 5);
  EXPECT_LT(total, 2000);
  // Non-streaming: held ttft + itl per token.
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(request(server->port(), "POST", "/v1/chat/completions", kDoubleChat).status, 200);
  EXPECT_GE(double_elapsed_ms(t0), 150 + 5 * 20);
  server->shutdown();
}

TEST(TestDouble, PerRequestHeadersSetTheLatency) {
  ServerOptions o = test_options();
  o.enable_fault_headers = true;
  auto server = start_server(o);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(
      request(server->port(), "POST", "/v1/completions", kDoubleStream, {{"X-Fault-TTFT", "200ms"}})
          .status,
      200);
  EXPECT_GE(double_elapsed_ms(t0), 200);
  const auto r =
      request(server->port(), "POST", "/v1/completions", kDoubleStream, {{"X-Fault-ITL", "20"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "X-Fault-ITL");
  server->shutdown();
}

TEST(TestDouble, AStalledStreamPausesAfterNEvents) {
  ServerOptions o = test_options();
  o.faults.stall_after = 2;
  o.faults.stall_ms = 400;
  auto server = start_server(o);
  Connection c(server->port());
  const auto start = std::chrono::steady_clock::now();
  c.send_request("POST", "/v1/completions", kDoubleStream);
  ASSERT_TRUE(c.read_until("data: {"));
  EXPECT_LT(double_elapsed_ms(start), 400);  // the first events are not held
  const auto r = c.read_response();
  EXPECT_GE(double_elapsed_ms(start), 400);
  EXPECT_NE(r.body.find("[DONE]"), std::string::npos);
  server->shutdown();
}

TEST(TestDouble, ACutStreamClosesTheConnectionAfterNEvents) {
  ServerOptions o = test_options();
  o.faults.cut_after = 3;
  auto server = start_server(o);
  Connection c(server->port());
  c.send_request("POST", "/v1/completions",
                 R"({"prompt":"Hello","max_tokens":50,"ignore_eos":true,"stream":true})");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(c.read_until("[DONE]"));       // the server closed the connection first
  EXPECT_LT(double_elapsed_ms(start), 5000);  // (not the client's 10 s timeout)
  EXPECT_NE(c.raw().find("200 OK"), std::string::npos);
  // Three events went out, then no more and no last chunk.
  size_t events = 0;
  for (size_t p = 0; (p = c.raw().find("data: ", p)) != std::string::npos; ++p) ++events;
  EXPECT_EQ(events, 3u);
  EXPECT_EQ(c.raw().find("[DONE]"), std::string::npos);
  EXPECT_EQ(c.raw().find("\r\n0\r\n\r\n"), std::string::npos);
  // The generation was aborted.
  EXPECT_TRUE(eventually([&] { return server->engine().num_unfinished() == 0; }));
  server->shutdown();
}

TEST(TestDouble, HealthStartsNotReadyThenFlaps) {
  ServerOptions o = test_options();
  o.faults.startup_delay_ms = 500;
  o.faults.health_flap_period_ms = 300;
  auto server = start_server(o);
  const uint16_t port = server->port();
  EXPECT_EQ(request(port, "GET", "/health").status, 503);
  EXPECT_TRUE(eventually([&] { return request(port, "GET", "/health").status == 200; }, 2000));
  EXPECT_TRUE(eventually([&] { return request(port, "GET", "/health").status == 503; }, 2000));
  EXPECT_TRUE(eventually([&] { return request(port, "GET", "/health").status == 200; }, 2000));
  // Generations are served meanwhile (the startup delay is /health's only).
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kDoubleChat).status, 200);
  server->shutdown();
}

TEST(TestDouble, TheAdminApiIsOffUnlessEnabled) {
  ServerOptions o = test_options();
  o.faults.failure_rate = 0.1;
  auto server = start_server(o);
  EXPECT_EQ(request(server->port(), "GET", "/admin/faults").status, 404);
  server->shutdown();
}

TEST(TestDouble, TheAdminApiChangesTheFaultsAtRunTime) {
  ServerOptions o = test_options();
  o.enable_admin_api = true;
  auto server = start_server(o);
  const uint16_t port = server->port();
  auto get = json::parse(request(port, "GET", "/admin/faults").body);
  EXPECT_EQ(get["failure_rate"], 0.0);
  EXPECT_EQ(get["health_ready"], true);
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kDoubleChat).status, 200);

  auto posted = request(port, "POST", "/admin/faults",
                        R"({"failure_rate":1,"failure_types":["model_not_found"]})");
  ASSERT_EQ(posted.status, 200) << posted.body;
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kDoubleChat).status, 404);
  get = json::parse(request(port, "GET", "/admin/faults").body);
  EXPECT_EQ(get["injected_failures"]["model_not_found"], 1);
  EXPECT_EQ(get["requests_seen"], 2);

  const auto bad = request(port, "POST", "/admin/faults", R"({"failure_rate":3})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["error"]["param"], "failure_rate");
  EXPECT_EQ(request(port, "POST", "/admin/faults", R"({"nope":1})").status, 400);
  EXPECT_EQ(request(port, "PUT", "/admin/faults", "{}").status, 405);

  EXPECT_EQ(request(port, "POST", "/admin/faults", R"({"startup_delay_ms":60000})").status, 200);
  EXPECT_EQ(request(port, "GET", "/health").status, 503);

  EXPECT_EQ(request(port, "DELETE", "/admin/faults").status, 200);
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kDoubleChat).status, 200);
  server->shutdown();
}

TEST(TestDouble, TheAdminApiNeedsTheApiKey) {
  ServerOptions o = test_options();
  o.enable_admin_api = true;
  o.api_key = "sekret";
  o.faults.failure_rate = 1;
  auto server = start_server(o);
  const uint16_t port = server->port();
  EXPECT_EQ(request(port, "GET", "/admin/faults").status, 401);
  EXPECT_EQ(request(port, "POST", "/admin/faults", R"({"failure_rate":0})",
                    {{"Authorization", "Bearer wrong"}})
                .status,
            401);
  EXPECT_EQ(request(port, "GET", "/admin/faults", "", {{"Authorization", "Bearer sekret"}}).status,
            200);
  // A generation without the key gets the server's 401, not an injected failure.
  const auto r = request(port, "POST", "/v1/chat/completions", kDoubleChat);
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"error":"Unauthorized"})");
  server->shutdown();
}

// vLLM's X-Request-Id middleware wraps every response: the double's own answers (an injected
// failure, X-Return-Error, a bad fault header, /health while not ready, the admin API) carry the
// header as the served ones do, the client's id when it sent one.
TEST(TestDouble, InjectedAnswersCarryTheRequestIdHeader) {
  ServerOptions o = test_options();
  o.enable_request_id_headers = true;
  o.enable_fault_headers = true;
  o.enable_admin_api = true;
  o.faults.failure_rate = 1;
  o.faults.failure_types = parse_failure_types("--failure-types", "server_error");
  o.faults.startup_delay_ms = 60000;
  auto server = start_server(o);
  const uint16_t port = server->port();
  const std::pair<std::string, std::string> given = {"X-Request-Id", "given-id"};
  const struct {
    const char* what;
    testing::Response r;
    int status;
  } rows[] = {
      {"failure", request(port, "POST", "/v1/chat/completions", kDoubleChat, {given}), 500},
      {"X-Return-Error",
       request(port, "POST", "/v1/chat/completions", kDoubleChat,
               {given, {"X-Return-Error", "429"}}),
       429},
      {"bad header",
       request(port, "POST", "/v1/chat/completions", kDoubleChat, {given, {"X-Fault-TTFT", "x"}}),
       400},
      {"health", request(port, "GET", "/health", "", {given}), 503},
      {"admin", request(port, "GET", "/admin/faults", "", {given}), 200},
  };
  for (const auto& row : rows) {
    EXPECT_EQ(row.r.status, row.status) << row.what;
    EXPECT_EQ(row.r.header("x-request-id"), "given-id") << row.what;
  }
  // Without one: a fresh id, as the router makes.
  const auto fresh = request(port, "POST", "/v1/chat/completions", kDoubleChat);
  EXPECT_EQ(fresh.status, 500);
  EXPECT_EQ(fresh.header("x-request-id").size(), 32u) << fresh.header("x-request-id");
  server->shutdown();
  // Off by default, as vLLM's --enable-request-id-headers.
  o.enable_request_id_headers = false;
  auto quiet = start_server(o);
  EXPECT_EQ(request(quiet->port(), "GET", "/health", "", {given}).header("x-request-id"), "");
  quiet->shutdown();
}

TEST(TestDouble, SeparatePortsShareOneFaultState) {
  ServerOptions o = test_options();
  o.data_parallel_size = 2;
  o.data_parallel_separate_ports = true;
  o.enable_admin_api = true;
  o.faults.failure_rate = 1;
  o.faults.failure_types = {FailureType::kServerError};
  auto server = start_server(o);
  ASSERT_EQ(server->num_ports(), 2u);
  EXPECT_EQ(request(server->port(0), "POST", "/v1/chat/completions", kDoubleChat).status, 500);
  EXPECT_EQ(request(server->port(1), "POST", "/v1/chat/completions", kDoubleChat).status, 500);
  const json state = json::parse(request(server->port(1), "GET", "/admin/faults").body);
  EXPECT_EQ(state["requests_seen"], 2);
  EXPECT_EQ(state["injected_failures"]["server_error"], 2);
  server->shutdown();
}

}  // namespace
}  // namespace llm
