// ApiRouter without HTTP: routes a failed engine's requests (/health 503, generations 503,
// /metrics still served).
#include "server/api/api_router.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "server/text/sim_text_codec.h"

namespace llm {
namespace {

class ThrowingBackend final : public Backend {
 public:
  Nanos execute(const SchedulerOutput&, std::vector<int32_t>&) override {
    throw std::runtime_error("device lost");
  }
  int32_t eos_token_id() const override { return 0; }
};

HttpRequest http(const std::string& method, const std::string& path, const std::string& body = "") {
  HttpRequest r;
  r.method = method;
  r.path = path;
  r.body = body;
  return r;
}

TEST(ApiRouter, AFailedEngineAnswersHealth503AndRefusesGenerations) {
  ServerContext context;
  context.setup.served_model_name = "m";
  context.setup.scheduler.block_size = 4;
  context.setup.scheduler.num_gpu_blocks = 64;
  context.setup.scheduler.max_model_len = 64;
  context.setup.scheduler.max_num_batched_tokens = 64;
  context.codec = std::make_shared<SimTextCodec>(1000);
  prometheus::Registry registry;
  context.registry = &registry;
  ThrowingBackend backend;
  EngineService engine(context.setup.scheduler, backend, nullptr);
  context.engines.add(&engine, nullptr);
  ApiRouter router(context);
  EXPECT_EQ(router.route(http("GET", "/health")).response.status, 200);

  GenerateRequest g;
  g.request_id = "x";
  g.prompt_tokens = {1, 2, 3};
  ASSERT_TRUE(engine.submit(g, [](const SequenceUpdate&) {}));
  for (int i = 0; i < 1000 && !engine.failed(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(engine.failed());
  EXPECT_EQ(router.route(http("GET", "/health")).response.status, 503);
  const RouteResult chat = router.route(
      http("POST", "/v1/chat/completions", R"({"messages":[{"role":"user","content":"hi"}]})"));
  EXPECT_EQ(chat.job, nullptr);
  EXPECT_EQ(chat.response.status, 503);
  EXPECT_EQ(router.route(http("GET", "/metrics")).response.status, 200);
  EXPECT_EQ(router.route(http("POST", "/tokenize", R"({"prompt":"a"})")).response.status, 200);
  engine.stop();
}

}  // namespace
}  // namespace llm
