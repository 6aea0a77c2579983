// --data-parallel-size N in llmserve: N engines behind one HTTP server, requests spread over them,
// each engine's Prometheus series labelled engine="i", and the same text whichever engine runs it.
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

TEST(DataParallel, RequestsSpreadOverEnginesWithLabelledSeries) {
  ServerOptions o = test_options();
  o.data_parallel_size = 3;
  auto server = start_server(o);
  const uint16_t port = server->port();
  const std::string body = R"({"prompt":"Hello there","max_tokens":5,"ignore_eos":true})";
  std::string first_text;
  for (int i = 0; i < 6; ++i) {
    const auto r = request(port, "POST", "/v1/completions", body);
    ASSERT_EQ(r.status, 200) << r.body;
    const json j = json::parse(r.body);
    EXPECT_EQ(j["usage"]["completion_tokens"], 5);
    const std::string text = j["choices"][0]["text"];
    if (i == 0) first_text = text;
    EXPECT_EQ(text, first_text);  // every engine runs the same model with the same seed
  }
  // Idle engines take turns: two requests each.
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(metric(port, R"(vllm:request_success_total{engine=")" + std::to_string(e) +
                               R"(",finished_reason="length",model_name="Llama-3.1-8B"})"),
              2)
        << "engine " << e;
    EXPECT_EQ(server->engine(static_cast<size_t>(e)).num_unfinished(), 0u);
  }
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
  server->shutdown();
}

TEST(DataParallel, LeastOutstandingEngineGetsTheNextRequest) {
  ServerOptions o = test_options();
  o.data_parallel_size = 2;
  o.step_time_scale = 1;  // real-time steps: a long request stays in flight
  auto server = start_server(o);
  const uint16_t port = server->port();
  // A long streaming request occupies one engine...
  testing::Connection slow(port);
  slow.send_request("POST", "/v1/completions",
                    R"({"prompt":"x","max_tokens":2000,"ignore_eos":true,"stream":true})");
  ASSERT_TRUE(testing::eventually([&] {
    return server->engine(0).num_unfinished() + server->engine(1).num_unfinished() == 1;
  }));
  const size_t busy = server->engine(0).num_unfinished() == 1 ? 0 : 1;
  // ...so short ones all go to the other.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(request(port, "POST", "/v1/completions", R"({"prompt":"y","max_tokens":1})").status,
              200);
  }
  EXPECT_EQ(metric(port, R"(vllm:request_success_total{engine=")" + std::to_string(1 - busy) +
                             R"(",finished_reason="length",model_name="Llama-3.1-8B"})"),
            3);
  slow.close();
  ASSERT_TRUE(testing::eventually([&] { return server->engine(busy).num_unfinished() == 0; }));
}

}  // namespace
}  // namespace llm
