// ApiRouter without HTTP: routes a failed engine's requests (/health 503, generations 503,
// /metrics still served), and gives the HTTP server's errors vLLM's shape.
#include "server/api/api_router.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "server/api/api_error.h"
#include "server/api/openai_response.h"
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
  SchedulerConfig scheduler;
  scheduler.block_size = 4;
  scheduler.num_gpu_blocks = 64;
  scheduler.max_model_len = 64;
  scheduler.max_num_batched_tokens = 64;
  ApiContext context;
  context.model.served_name = "m";
  context.model.max_model_len = 64;
  context.codec = std::make_shared<SimTextCodec>(1000);
  prometheus::Registry registry;
  context.registry = &registry;
  ThrowingBackend backend;
  EngineService engine(scheduler, backend, nullptr);
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

std::string header_of(const HttpResponse& r, const std::string& name) {
  for (const auto& [key, value] : r.headers) {
    if (key == name) return value;
  }
  return "";
}

// The route table's checks before any handler runs: the one method of each route (405 naming it
// in Allow), a JSON body on the POST routes, 404 elsewhere; and a handler's ApiException answered
// at the one boundary, with the request's headers like any response.
TEST(ApiRouter, EachRouteTakesOneMethodAndItsErrorsKeepTheRequestsHeaders) {
  ApiContext context;
  context.model.served_name = "m";
  context.model.max_model_len = 64;
  context.codec = std::make_shared<SimTextCodec>(1000);
  context.options.enable_request_id_headers = true;
  ApiRouter router(context);
  struct Row {
    const char* method;
    const char* path;
    const char* content_type;
    const char* body;
    int status;
    const char* allow;  // the Allow header of a 405
  };
  const Row rows[] = {
      {"POST", "/health", "application/json", "", 405, "GET"},
      {"POST", "/metrics", "application/json", "", 405, "GET"},
      {"GET", "/tokenize", "application/json", "", 405, "POST"},
      {"GET", "/v1/chat/completions", "application/json", "", 405, "POST"},
      {"GET", "/v1/completions/render", "application/json", "", 405, "POST"},
      {"POST", "/v1/responses", "text/plain", "{}", 400, ""},
      {"POST", "/detokenize", "", "{}", 400, ""},
      {"POST", "/tokenize", "application/json", "{bad", 400, ""},
      {"POST", "/v1/completions/render", "application/json", R"({"prompt":7})", 400, ""},
      {"GET", "/v1/nope", "application/json", "", 404, ""},
      {"GET", "/version", "application/json", "", 200, ""},
  };
  for (const Row& row : rows) {
    HttpRequest req = http(row.method, row.path, row.body);
    req.content_type = row.content_type;
    req.request_id = "id-1";
    const RouteResult result = router.route(req);
    const std::string what = std::string(row.method) + " " + row.path;
    ASSERT_EQ(result.job, nullptr) << what;
    EXPECT_EQ(result.response.status, row.status) << what << ": " << result.response.body;
    EXPECT_EQ(header_of(result.response, "Allow"), row.allow) << what;
    EXPECT_EQ(header_of(result.response, "X-Request-Id"), "id-1") << what;
    if (row.status >= 400) {
      const nlohmann::json envelope = nlohmann::json::parse(result.response.body);
      EXPECT_EQ(envelope["error"]["code"], row.status) << what;
    }
  }
}

// The HTTP server's own errors (413, 431, 408, 503...) and the exceptions that escape a request
// come out in vLLM's envelope, a stream's as its chat error frame and [DONE].
TEST(ApiRouter, ShapesTheHttpServersErrorsAsVllms) {
  ApiContext context;
  ApiRouter router(context);
  const HttpResponse r = router.error_response(413, "too big (--max-request-body-bytes).");
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, error_body(ApiError{413, "too big (--max-request-body-bytes).", "", ""}));
  const nlohmann::json envelope = nlohmann::json::parse(r.body);
  EXPECT_EQ(envelope["error"]["type"], "RequestEntityTooLargeError");
  EXPECT_EQ(envelope["error"]["code"], 413);

  HttpFailure failure;
  try {
    throw ApiException(ApiError{400, "bad n", "n", ""});
  } catch (...) {
    failure = router.failure(std::current_exception());
  }
  EXPECT_EQ(failure.status, 400);
  EXPECT_EQ(failure.message, "bad n");
  EXPECT_EQ(failure.stream_tail,
            build_error_frame(ApiError{400, "bad n", "n", ""}) + "data: [DONE]\n\n");
  try {
    throw std::runtime_error("disk full");
  } catch (...) {
    failure = router.failure(std::current_exception());
  }
  EXPECT_EQ(failure.status, 500);
  EXPECT_EQ(failure.message, "Internal server error: disk full");
}

}  // namespace
}  // namespace llm
