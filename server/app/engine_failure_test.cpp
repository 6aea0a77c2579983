// A backend that throws mid-generation, over HTTP: the streaming client gets an error frame then
// [DONE], a non-streaming one a 500, later requests 503, /health 503; /metrics is still served.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using testing::request;
using testing::test_options;

// Throws from the `fail_at`-th step on.
class FailingBackend final : public Backend {
 public:
  FailingBackend(Backend& inner, int fail_at) : inner_(inner), fail_at_(fail_at) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    if (steps_++ >= fail_at_) throw std::runtime_error("injected device failure");
    return inner_.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  void release(const Request& r) override { inner_.release(r); }

 private:
  Backend& inner_;
  int fail_at_;
  int steps_ = 0;
};

std::unique_ptr<LlmServer> failing_server(int fail_at) {
  auto server = std::make_unique<LlmServer>(test_options(), [fail_at](Backend& inner) {
    return std::make_unique<FailingBackend>(inner, fail_at);
  });
  server->start();
  return server;
}

TEST(EngineFailure, StreamingClientGetsAnErrorFrameThenDone) {
  auto server = failing_server(4);
  const uint16_t port = server->port();
  const auto r = request(port, "POST", "/v1/completions",
                         R"({"prompt":"Hello","max_tokens":50,"ignore_eos":true,"stream":true})");
  EXPECT_EQ(r.status, 200);
  const size_t error = r.body.find("data: {\"error\": ");
  ASSERT_NE(error, std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"code\":500", error), std::string::npos) << r.body;
  EXPECT_EQ(r.body.substr(r.body.size() - 14), "data: [DONE]\n\n");
  EXPECT_GT(error, r.body.find("\"text\""));  // some tokens came before the failure

  EXPECT_EQ(request(port, "GET", "/health").status, 503);
  const auto later = request(port, "POST", "/v1/completions", R"({"prompt":"x","max_tokens":2})");
  EXPECT_EQ(later.status, 503);
  EXPECT_NE(later.body.find("engine has failed"), std::string::npos) << later.body;
  EXPECT_EQ(request(port, "GET", "/metrics").status, 200);
  server->shutdown();  // still exits cleanly
}

TEST(EngineFailure, NonStreamingClientGets500) {
  auto server = failing_server(2);
  const auto r = request(server->port(), "POST", "/v1/chat/completions",
                         R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":20})");
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("\"error\""), std::string::npos) << r.body;
}

}  // namespace
}  // namespace llm
