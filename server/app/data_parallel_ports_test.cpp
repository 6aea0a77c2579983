// --data-parallel-separate-ports: with --data-parallel-size N, engine i serves the whole API and
// its own /metrics (only its engine="i" series, its own HTTP metrics) on a port of its own, so a
// gateway sees N endpoints; requests to engine i's port run on engine i.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::metric;
using testing::request;
using testing::start_server;
using testing::test_options;

std::string success_series(int engine) {
  return R"(vllm:request_success_total{engine=")" + std::to_string(engine) +
         R"(",finished_reason="length",model_name="Llama-3.1-8B"})";
}

TEST(DataParallelPorts, EachEngineHasItsOwnPortApiAndMetrics) {
  ServerOptions o = test_options();
  o.data_parallel_size = 2;
  o.data_parallel_separate_ports = true;
  auto server = start_server(o);
  ASSERT_EQ(server->num_ports(), 2u);
  const uint16_t port0 = server->port(0), port1 = server->port(1);
  ASSERT_NE(port0, port1);
  for (uint16_t port : {port0, port1}) {
    EXPECT_EQ(request(port, "GET", "/health").status, 200);
    EXPECT_EQ(json::parse(request(port, "GET", "/v1/models").body)["data"][0]["id"],
              "Llama-3.1-8B");
  }
  const std::string body = R"({"prompt":"Hello there","max_tokens":4,"ignore_eos":true})";
  // Three requests to engine 1's port, one to engine 0's: each runs where it was sent.
  for (int k = 0; k < 3; ++k)
    ASSERT_EQ(request(port1, "POST", "/v1/completions", body).status, 200);
  const auto r0 = request(port0, "POST", "/v1/completions", body);
  ASSERT_EQ(r0.status, 200);
  EXPECT_EQ(metric(port1, success_series(1)), 3);
  EXPECT_EQ(metric(port0, success_series(0)), 1);
  // Each port shows only its own engine's series.
  const std::string text0 = request(port0, "GET", "/metrics").body;
  const std::string text1 = request(port1, "GET", "/metrics").body;
  EXPECT_EQ(text0.find(R"(engine="1")"), std::string::npos);
  EXPECT_EQ(text1.find(R"(engine="0")"), std::string::npos);
  EXPECT_NE(text1.find(R"(vllm:cache_config_info{block_size=)"), std::string::npos);
  EXPECT_EQ(metric(port1, R"(http_requests_total{handler="/v1/completions",method="POST",)"
                          R"(status="2xx"})"),
            3);
  EXPECT_EQ(metric(port0, R"(http_requests_total{handler="/v1/completions",method="POST",)"
                          R"(status="2xx"})"),
            1);
  // The same model with the same seed: the same text on either engine.
  const auto r1 = request(port1, "POST", "/v1/completions", body);
  EXPECT_EQ(json::parse(r1.body)["choices"][0]["text"], json::parse(r0.body)["choices"][0]["text"]);
  server->shutdown();
  EXPECT_EQ(server->engine(0).num_unfinished() + server->engine(1).num_unfinished(), 0u);
}

TEST(DataParallelPorts, WithoutTheFlagOnePortFrontsAllEngines) {
  ServerOptions o = test_options();
  o.data_parallel_size = 2;
  auto server = start_server(o);
  EXPECT_EQ(server->num_ports(), 1u);
  const std::string text = request(server->port(), "GET", "/metrics").body;
  EXPECT_NE(text.find(R"(engine="0")"), std::string::npos);
  EXPECT_NE(text.find(R"(engine="1")"), std::string::npos);
}

TEST(DataParallelPorts, FixedPortsAreBasePlusEngineIndex) {
  ServerOptions o = test_options();
  o.data_parallel_size = 2;
  o.data_parallel_separate_ports = true;
  // Find two free consecutive ports by trying a few bases.
  for (int attempt = 0; attempt < 20; ++attempt) {
    o.port = 20000 + 97 * attempt + static_cast<int>(::getpid() % 50) * 7;
    try {
      auto server = start_server(o);
      EXPECT_EQ(server->port(0), o.port);
      EXPECT_EQ(server->port(1), o.port + 1);
      EXPECT_EQ(request(server->port(1), "GET", "/health").status, 200);
      return;
    } catch (const std::runtime_error&) {
      // in use: try another base
    }
  }
  GTEST_SKIP() << "no two free consecutive ports found";
}

}  // namespace
}  // namespace llm
