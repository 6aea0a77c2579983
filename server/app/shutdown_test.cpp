// A request's end other than its own, over loopback: a client that disconnects mid-stream (or
// before its answer) aborts its request in the engine, and SIGTERM's graceful shutdown lets
// in-flight requests finish within --shutdown-timeout and aborts the rest.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using testing::Connection;
using testing::eventually;
using testing::metric;
using testing::request;
using testing::start_server;
using testing::test_options;

TEST(ApiServer, ClientDisconnectMidStreamAbortsTheRequest) {
  ServerOptions o = test_options();
  o.step_time_scale = 1.0;  // a few ms per step: the request is still running when we leave
  auto server = start_server(o);
  const uint16_t port = server->port();
  {
    Connection c(port);
    c.send_request("POST", "/v1/completions",
                   R"({"prompt":"go","max_tokens":5000,"ignore_eos":true,"stream":true})");
    ASSERT_TRUE(c.read_until("\"finish_reason\":null"));  // at least one token arrived
  }
  ASSERT_TRUE(eventually([&] {
    return metric(
               port,
               R"(vllm:request_success_total{engine="0",finished_reason="abort",model_name="Llama-3.1-8B"})") ==
           1.0;
  }));
  EXPECT_EQ(metric(port, R"(vllm:kv_cache_usage_perc{engine="0",model_name="Llama-3.1-8B"})"), 0.0);
  EXPECT_EQ(metric(port, R"(vllm:num_requests_running{engine="0",model_name="Llama-3.1-8B"})"),
            0.0);
  // Non-streaming, gone before the first byte of the answer.
  {
    Connection c(port);
    c.send_request("POST", "/v1/completions",
                   R"({"prompt":"go","max_tokens":5000,"ignore_eos":true})");
    ASSERT_TRUE(eventually([&] { return server->engine().num_unfinished() == 1; }));
  }
  ASSERT_TRUE(eventually([&] {
    return metric(
               port,
               R"(vllm:request_success_total{engine="0",finished_reason="abort",model_name="Llama-3.1-8B"})") ==
           2.0;
  }));
  EXPECT_EQ(server->engine().num_unfinished(), 0u);
}

TEST(ApiServer, GracefulShutdownFinishesInFlightRequests) {
  ServerOptions o = test_options();
  o.step_time_scale = 1.0;
  o.shutdown_timeout_s = 10;
  auto server = start_server(o);
  const uint16_t port = server->port();
  Connection c(port);
  c.send_request("POST", "/v1/completions",
                 R"({"prompt":"go","max_tokens":40,"ignore_eos":true,"stream":true})");
  ASSERT_TRUE(c.read_until("\"finish_reason\":null"));
  std::thread stopper([&] { server->shutdown(); });
  ASSERT_TRUE(eventually([&] { return server->api().draining.load(); }));
  EXPECT_EQ(request(port, "GET", "/health").status, 503);
  EXPECT_EQ(request(port, "POST", "/v1/completions", R"({"prompt":"a"})").status, 503);
  const auto r = c.read_response();
  stopper.join();
  EXPECT_NE(r.body.find("\"finish_reason\":\"length\""), std::string::npos);
  EXPECT_EQ(r.body.substr(r.body.size() - 14), "data: [DONE]\n\n");
}

TEST(ApiServer, ShutdownTimeoutAbortsTheRest) {
  ServerOptions o = test_options();
  o.step_time_scale = 1.0;
  o.shutdown_timeout_s = 0.1;
  auto server = start_server(o);
  Connection c(server->port());
  c.send_request("POST", "/v1/completions",
                 R"({"prompt":"go","max_tokens":100000,"ignore_eos":true,"stream":true})");
  ASSERT_TRUE(c.read_until("\"finish_reason\":null"));
  server->shutdown();
  const auto r = c.read_response();
  EXPECT_NE(r.body.find("\"finish_reason\":\"abort\""), std::string::npos);
  EXPECT_EQ(r.body.substr(r.body.size() - 14), "data: [DONE]\n\n");
}

}  // namespace
}  // namespace llm
