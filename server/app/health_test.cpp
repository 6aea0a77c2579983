// /health as Kubernetes probes and the endpoint picker use it: nothing listens until the model is
// loaded (the server is built, then started), it answers at once while the engine is inside a
// step (it takes no engine lock; /metrics neither), it fails (503) as soon as an engine is dead,
// and with --data-parallel-separate-ports a dead engine fails only its own port.
// (SIGTERM: 503 first, then drain: tests/server/sigterm_test.py and ApiServer tests.)
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using testing::request;
using testing::test_options;

// Holds its first step until open(); throws from step `fail_at` on when fail_at >= 0.
class HoldingBackend final : public Backend {
 public:
  HoldingBackend(Backend& inner, int fail_at) : inner_(inner), fail_at_(fail_at) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    if (fail_at_ >= 0 && steps_ >= fail_at_) throw std::runtime_error("injected device failure");
    if (steps_++ == 0 && fail_at_ < 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      in_step_ = true;
      changed_.notify_all();
      changed_.wait(lock, [this] { return open_; });
    }
    return inner_.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  void release(const Request& r) override { inner_.release(r); }
  bool wait_in_step() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [this] { return in_step_; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  Backend& inner_;
  int fail_at_;
  int steps_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool in_step_ = false, open_ = false;
};

TEST(Health, NothingListensBeforeTheServerIsStarted) {
  LlmServer server(test_options());  // the model (here the sim's) is loaded in the constructor
  EXPECT_EQ(server.port(), 0);       // no listener yet: a probe cannot connect
  server.start();
  ASSERT_NE(server.port(), 0);
  EXPECT_EQ(request(server.port(), "GET", "/health").status, 200);
}

TEST(Health, HealthAndMetricsAnswerWhileTheEngineIsInsideAStep) {
  HoldingBackend* holding = nullptr;
  LlmServer server(test_options(), [&holding](Backend& inner) {
    auto b = std::make_unique<HoldingBackend>(inner, -1);
    holding = b.get();
    return b;
  });
  server.start();
  const uint16_t port = server.port();
  testing::Connection stream(port);
  stream.send_request("POST", "/v1/completions",
                      R"({"prompt":"x","max_tokens":3,"ignore_eos":true,"stream":true})");
  ASSERT_TRUE(holding->wait_in_step());
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto health = request(port, "GET", "/health");
  const auto metrics = request(port, "GET", "/metrics");
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  holding->open();
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("vllm:num_requests_running"), std::string::npos);
  EXPECT_LT(seconds, 2.0) << "a probe waited for the engine's step";
  EXPECT_EQ(stream.read_response().status, 200);
}

TEST(Health, ADeadEngineFailsOnlyItsOwnPort) {
  ServerOptions o = test_options();
  o.data_parallel_size = 2;
  o.data_parallel_separate_ports = true;
  int made = 0;
  LlmServer server(o, [&made](Backend& inner) {
    // Engine 1's backend fails at its first step; engine 0's never.
    return std::make_unique<HoldingBackend>(inner, made++ == 1 ? 0 : 1000000);
  });
  server.start();
  const uint16_t port0 = server.port(0), port1 = server.port(1);
  EXPECT_EQ(request(port1, "GET", "/health").status, 200);
  const auto failed = request(port1, "POST", "/v1/completions", R"({"prompt":"x","max_tokens":2})");
  EXPECT_EQ(failed.status, 500) << failed.body;
  EXPECT_EQ(request(port1, "GET", "/health").status, 503);
  EXPECT_EQ(request(port1, "POST", "/v1/completions", R"({"prompt":"x","max_tokens":2})").status,
            503);
  EXPECT_EQ(request(port0, "GET", "/health").status, 200);
  EXPECT_EQ(request(port0, "POST", "/v1/completions", R"({"prompt":"x","max_tokens":2})").status,
            200);
  server.shutdown();
}

}  // namespace
}  // namespace llm
