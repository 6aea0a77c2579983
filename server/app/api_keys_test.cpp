// API keys and request ids over loopback: --api-key guards vLLM's prefixes only, --metrics-api-key
// /metrics, the Bearer comparison, and X-Request-Id given or made (--enable-request-id-headers).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "server/api/api_router.h"
#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using testing::Connection;
using testing::request;
using testing::start_server;
using testing::test_options;

TEST(ApiServer, ApiKeyProtectsApiPathsOnly) {
  ServerOptions o = test_options();
  o.api_key = "sekret";
  auto server = start_server(o);
  const uint16_t port = server->port();
  auto r = request(port, "GET", "/v1/models");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"error":"Unauthorized"})");
  EXPECT_EQ(request(port, "GET", "/v1/models", "", {{"Authorization", "Bearer wrong"}}).status,
            401);
  EXPECT_EQ(request(port, "GET", "/v1/models", "", {{"Authorization", "Bearer sekret"}}).status,
            200);
  EXPECT_EQ(request(port, "POST", "/v1/completions", R"({"prompt":"a","max_tokens":1})").status,
            401);
  // vLLM's GUARDED_PREFIX, matched as a plain string prefix (vllm/entrypoints/serve/utils/
  // server_utils.py): what starts with one needs the key even where no route exists.
  for (const char* path : {"/v2/anything", "/inference/v1/generate", "/cohere/v2/chat", "/v1x"}) {
    EXPECT_EQ(request(port, "GET", path).status, 401) << path;
  }
  // Everything else is open, as in vLLM: health, version, metrics, the tokenizer routes.
  EXPECT_EQ(request(port, "GET", "/metrics").status, 200);
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
  EXPECT_EQ(request(port, "GET", "/version").status, 200);
  EXPECT_EQ(request(port, "POST", "/tokenize", R"({"prompt":"a"})").status, 200);
  EXPECT_EQ(request(port, "POST", "/detokenize", R"({"tokens":[1]})").status, 200);
  EXPECT_EQ(request(port, "GET", "/nope").status, 404);
}

TEST(ApiServer, MetricsApiKeyProtectsMetrics) {
  ServerOptions o = test_options();
  o.metrics_api_key = "m";
  auto server = start_server(o);
  EXPECT_EQ(request(server->port(), "GET", "/metrics").status, 401);
  EXPECT_EQ(
      request(server->port(), "GET", "/v1/metrics", "", {{"Authorization", "Bearer x"}}).status,
      401);
  EXPECT_EQ(request(server->port(), "GET", "/metrics", "", {{"Authorization", "Bearer m"}}).status,
            200);
  EXPECT_EQ(request(server->port(), "GET", "/v1/models").status, 200);
}

// vLLM's verify_token: the scheme (before the first space) compared without case, the rest
// exactly the key.
TEST(ApiServer, BearerComparison) {
  EXPECT_TRUE(bearer_matches("Bearer k", "k"));
  EXPECT_TRUE(bearer_matches("bearer k", "k"));
  EXPECT_TRUE(bearer_matches("BEARER k", "k"));
  EXPECT_FALSE(bearer_matches("Bearer k ", "k"));
  EXPECT_FALSE(bearer_matches("Bearer  k", "k"));
  EXPECT_FALSE(bearer_matches("Bearer ", "k"));
  EXPECT_FALSE(bearer_matches("Bearer", "k"));
  EXPECT_FALSE(bearer_matches("Bearerk", "k"));
  EXPECT_FALSE(bearer_matches("Basic k", "k"));
  EXPECT_FALSE(bearer_matches("Bearer kk", "k"));
  EXPECT_FALSE(bearer_matches("", "k"));
}

TEST(ApiServer, RequestIdHeaders) {
  ServerOptions o = test_options();
  o.enable_request_id_headers = true;
  auto server = start_server(o);
  auto r = request(server->port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":1})",
                   {{"X-Request-Id", "my-id"}});
  EXPECT_EQ(r.header("x-request-id"), "my-id");
  EXPECT_EQ(nlohmann::json::parse(r.body)["id"], "cmpl-my-id");
  r = request(server->port(), "GET", "/v1/models");
  EXPECT_TRUE(std::regex_match(r.header("x-request-id"), std::regex("[0-9a-f]{32}")))
      << r.header("x-request-id");
  // The same id twice at once is fine: engine ids are made unique.
  Connection a(server->port()), b(server->port());
  const std::string body = R"({"prompt":"a","max_tokens":3})";
  a.send_request("POST", "/v1/completions", body, {{"X-Request-Id", "dup"}});
  b.send_request("POST", "/v1/completions", body, {{"X-Request-Id", "dup"}});
  EXPECT_EQ(a.read_response().status, 200);
  EXPECT_EQ(b.read_response().status, 200);
}

}  // namespace
}  // namespace llm
