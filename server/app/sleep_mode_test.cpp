// Sleep mode (vLLM's dev-mode /sleep, /wake_up, /is_sleeping with --enable-sleep-mode): the
// routes exist only in dev mode with the flag, completions wait while asleep and are served after
// the wake-up, partial wake-ups keep the server asleep, vllm:engine_sleep_state follows, and
// --api-key leaves the sleep routes open, as vLLM's guard does.
#include "server/app/sleep_mode.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/flag_values.h"
#include "server/api/sleep_api.h"
#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::Connection;
using testing::request;
using testing::start_server;
using testing::test_options;

const char* kChat = R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":2})";

std::unique_ptr<LlmServer> sleepy_server() {
  setenv("VLLM_SERVER_DEV_MODE", "1", 1);
  ServerOptions o = test_options();
  o.enable_sleep_mode = true;
  auto server = start_server(o);
  unsetenv("VLLM_SERVER_DEV_MODE");
  return server;
}

// The metric's line for one sleep_state, e.g.
// `vllm:engine_sleep_state{...,sleep_state="awake"} 1.0`.
std::string gauge_line(const std::string& metrics, const std::string& state) {
  const size_t at = metrics.find("sleep_state=\"" + state + "\"");
  if (at == std::string::npos) return "";
  const size_t start = metrics.rfind('\n', at) + 1;
  return metrics.substr(start, metrics.find('\n', at) - start);
}

// Its value: "1" or "0" (or "" without the series).
std::string gauge_value(const std::string& metrics, const std::string& state) {
  const std::string line = gauge_line(metrics, state);
  if (line.empty()) return "";
  return std::to_string(static_cast<int>(std::stod(line.substr(line.rfind(' ') + 1))));
}

TEST(SleepMode, DevModeIsVllmsIntegerReading) {
  EXPECT_FALSE(server_dev_mode(nullptr));
  EXPECT_FALSE(server_dev_mode("0"));
  EXPECT_TRUE(server_dev_mode("1"));
  EXPECT_THROW(server_dev_mode("true"), UsageError);
  ServerOptions o;
  auto env = [](const char* v) { return [v](const char*) { return v; }; };
  EXPECT_EQ(make_sleep_state(o, {}, "m", env("1")), nullptr);  // no --enable-sleep-mode
  o.enable_sleep_mode = true;
  EXPECT_EQ(make_sleep_state(o, {}, "m", env(nullptr)), nullptr);  // not dev mode
  EXPECT_NE(make_sleep_state(o, {}, "m", env("1")), nullptr);
}

TEST(SleepMode, QueryValuesDecodeInOrder) {
  EXPECT_EQ(query_values("tags=weights&x=1&tags=kv%5Fcache", "tags"),
            (std::vector<std::string>{"weights", "kv_cache"}));
  EXPECT_EQ(query_values("", "level"), std::vector<std::string>{});
  EXPECT_EQ(query_values("level", "level"), std::vector<std::string>{""});
}

TEST(SleepMode, RoutesAreAbsentWithoutDevModeOrTheFlag) {
  ServerOptions o = test_options();
  o.enable_sleep_mode = true;  // VLLM_SERVER_DEV_MODE unset
  auto server = start_server(o);
  EXPECT_EQ(request(server->port(), "GET", "/is_sleeping").status, 404);
  EXPECT_EQ(request(server->port(), "POST", "/sleep").status, 404);
  EXPECT_EQ(request(server->port(), "GET", "/sleep").status, 404);  // not 405: no such route
  // The gauge is there as always, awake.
  EXPECT_EQ(gauge_value(request(server->port(), "GET", "/metrics").body, "awake"), "1");
}

TEST(SleepMode, SleepAndWakeUpStepsAndTheGaugeFollows) {
  auto server = sleepy_server();
  const uint16_t port = server->port();
  auto is_sleeping = [&] {
    const auto r = request(port, "GET", "/is_sleeping");
    EXPECT_EQ(r.status, 200);
    return json::parse(r.body)["is_sleeping"].get<bool>();
  };
  auto metrics = [&] { return request(port, "GET", "/metrics").body; };
  EXPECT_FALSE(is_sleeping());
  EXPECT_NE(gauge_line(metrics(), "awake").find("engine=\"0\""), std::string::npos);
  EXPECT_EQ(gauge_value(metrics(), "awake"), "1");
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kChat).status, 200);

  struct Step {
    const char* method;
    const char* target;
    int status;
    bool sleeping;
    const char* awake;  // the gauge values after the step
    const char* offloaded;
    const char* discarded;
  };
  const Step steps[] = {
      {"POST", "/sleep", 200, true, "0", "1", "0"},
      {"POST", "/wake_up?tags=weights", 200, true, "0", "1", "0"},  // kv_cache still sleeps
      {"POST", "/wake_up?tags=kv_cache", 200, false, "1", "0", "0"},
      {"POST", "/sleep?level=2", 200, true, "0", "0", "1"},
      {"POST", "/sleep?level=3", 400, true, "0", "0", "1"},
      {"POST", "/sleep?mode=later", 400, true, "0", "0", "1"},
      {"POST", "/wake_up", 200, false, "1", "0", "0"},
  };
  for (const Step& s : steps) {
    const auto r = request(port, s.method, s.target);
    EXPECT_EQ(r.status, s.status) << s.target << ": " << r.body;
    EXPECT_EQ(is_sleeping(), s.sleeping) << s.target;
    const std::string m = metrics();
    EXPECT_EQ(gauge_value(m, "awake"), s.awake) << s.target;
    EXPECT_EQ(gauge_value(m, "weights_offloaded"), s.offloaded) << s.target;
    EXPECT_EQ(gauge_value(m, "discard_all"), s.discarded) << s.target;
    if (s.sleeping) {
      // What needs no weights still answers.
      EXPECT_EQ(request(port, "POST", "/tokenize", R"({"prompt":"a b"})").status, 200);
      EXPECT_EQ(request(port, "GET", "/health").status, 200);
    } else {
      EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kChat).status, 200) << s.target;
    }
  }
}

// engine 0's value of a gauge family (e.g. vllm:num_requests_waiting), -1 without it.
double engine_gauge(uint16_t port, const std::string& family) {
  const std::string text = request(port, "GET", "/metrics").body;
  const size_t at = text.find("\n" + family + "{");
  if (at == std::string::npos) return -1;
  const size_t eol = text.find('\n', at + 1);
  const std::string line = text.substr(at + 1, eol - at - 1);
  return std::stod(line.substr(line.rfind(' ') + 1));
}

// vLLM's EngineCore.sleep pauses the scheduler and "all pause modes queue new adds": a request to
// a sleeping model is accepted and waits (no 503), through a partial wake-up too, and is served
// once the model is fully awake.
TEST(SleepMode, ARequestToASleepingModelWaitsAndIsServedAfterTheWakeUp) {
  auto server = sleepy_server();
  const uint16_t port = server->port();
  ASSERT_EQ(request(port, "POST", "/sleep").status, 200);
  Connection c(port);
  c.send_request("POST", "/v1/chat/completions", kChat);
  EXPECT_TRUE(testing::eventually(
      [&] { return engine_gauge(port, "vllm:num_requests_waiting") == 1; }, 5000));
  EXPECT_EQ(engine_gauge(port, "vllm:num_requests_running"), 0);
  EXPECT_EQ(request(port, "POST", "/wake_up?tags=weights").status, 200);  // kv_cache sleeps on
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(engine_gauge(port, "vllm:num_requests_waiting"), 1);
  EXPECT_EQ(request(port, "POST", "/wake_up").status, 200);
  const auto r = c.read_response();
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["choices"].size(), 1u) << r.body;
  EXPECT_EQ(engine_gauge(port, "vllm:num_requests_waiting"), 0);
}

// vLLM's --api-key guards /v1, /v2, /inference and /cohere only: the sleep routes answer without
// the key (operators must keep them off untrusted networks, as vLLM's security guide says).
TEST(SleepMode, TheApiKeyLeavesTheSleepRoutesOpenAsVllmDoes) {
  setenv("VLLM_SERVER_DEV_MODE", "1", 1);
  ServerOptions o = test_options();
  o.enable_sleep_mode = true;
  o.api_key = "k";
  auto server = start_server(o);
  unsetenv("VLLM_SERVER_DEV_MODE");
  const uint16_t port = server->port();
  EXPECT_EQ(request(port, "POST", "/sleep").status, 200);
  EXPECT_EQ(request(port, "GET", "/is_sleeping").body, R"({"is_sleeping":true})");
  EXPECT_EQ(request(port, "POST", "/wake_up").status, 200);
  EXPECT_EQ(request(port, "GET", "/is_sleeping").body, R"({"is_sleeping":false})");
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions", kChat).status, 401);
}

TEST(SleepMode, SleepAbortsWhatRunsByDefaultAndKeepLetsItFinish) {
  setenv("VLLM_SERVER_DEV_MODE", "1", 1);
  ServerOptions o = test_options();
  o.enable_sleep_mode = true;
  o.step_time_scale = 1.0;  // a few ms per step: the request is still running when we sleep
  auto server = start_server(o);
  unsetenv("VLLM_SERVER_DEV_MODE");
  const uint16_t port = server->port();
  {
    Connection c(port);
    c.send_request("POST", "/v1/completions",
                   R"({"prompt":"go","max_tokens":5000,"ignore_eos":true,"stream":true})");
    ASSERT_TRUE(c.read_until("\"finish_reason\":null"));
    EXPECT_EQ(request(port, "POST", "/sleep").status, 200);  // mode=abort, vLLM's default
    EXPECT_TRUE(c.read_until("\"finish_reason\":\"abort\""));
  }
  EXPECT_EQ(request(port, "POST", "/wake_up").status, 200);
  Connection c(port);
  c.send_request("POST", "/v1/completions",
                 R"({"prompt":"go","max_tokens":40,"ignore_eos":true,"stream":true})");
  ASSERT_TRUE(c.read_until("\"finish_reason\":null"));
  EXPECT_EQ(request(port, "POST", "/sleep?mode=keep").status, 200);
  EXPECT_TRUE(c.read_until("\"finish_reason\":\"length\""));
}

}  // namespace
}  // namespace llm
