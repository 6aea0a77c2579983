// POST /v1/completions/render and /v1/chat/completions/render over HTTP: the token ids are those
// the same body would run with (checked against /tokenize and the usage of really running it),
// nothing runs in the engine, and bad bodies get the endpoint's own 4xx in the error envelope.
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

const char* kSuccess =
    R"(vllm:request_success_total{engine="0",finished_reason="length",model_name="Llama-3.1-8B"})";

TEST(RenderEndpoint, CompletionIdsAreTheIdsTheRequestRunsWith) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const auto r = request(port, "POST", "/v1/completions/render",
                         R"({"prompt":["the quick brown fox","jumps"],"max_tokens":3})");
  ASSERT_EQ(r.status, 200) << r.body;
  const json rendered = json::parse(r.body);
  ASSERT_EQ(rendered.size(), 2u);
  const json tokenized =
      json::parse(request(port, "POST", "/tokenize", R"({"prompt":"the quick brown fox"})").body);
  EXPECT_EQ(rendered[0]["token_ids"], tokenized["tokens"]);
  EXPECT_EQ(rendered[0]["sampling_params"]["max_tokens"], 3);
  // Rendering ran nothing.
  EXPECT_EQ(metric(port, kSuccess), 0);
  // Running the first prompt uses exactly as many prompt tokens.
  const json ran = json::parse(request(port, "POST", "/v1/completions",
                                       R"({"prompt":"the quick brown fox","max_tokens":3,)"
                                       R"("ignore_eos":true})")
                                   .body);
  EXPECT_EQ(ran["usage"]["prompt_tokens"], rendered[0]["token_ids"].size());
  // Token-id prompts come back as given.
  const json ids =
      json::parse(request(port, "POST", "/v1/completions/render", R"({"prompt":[5,6,7]})").body);
  EXPECT_EQ(ids[0]["token_ids"], json({5, 6, 7}));
}

TEST(RenderEndpoint, ChatIdsAreTheTemplatedPromptsIds) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const std::string messages =
      R"("messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}])";
  const auto r = request(port, "POST", "/v1/chat/completions/render", "{" + messages + "}");
  ASSERT_EQ(r.status, 200) << r.body;
  const json rendered = json::parse(r.body);
  ASSERT_TRUE(rendered.is_object());
  EXPECT_EQ(rendered["request_id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(rendered["model"], "Llama-3.1-8B");
  const json tokenized = json::parse(request(port, "POST", "/tokenize", "{" + messages + "}").body);
  EXPECT_EQ(rendered["token_ids"], tokenized["tokens"]);
  // No max_tokens: the context's room, as the engine would be given.
  EXPECT_EQ(rendered["sampling_params"]["max_tokens"],
            server->context().setup.scheduler.max_model_len - tokenized["count"].get<int64_t>());
  const json ran = json::parse(
      request(port, "POST", "/v1/chat/completions", "{" + messages + R"(,"max_tokens":2})").body);
  EXPECT_EQ(ran["usage"]["prompt_tokens"], tokenized["count"]);
  EXPECT_EQ(metric(port, kSuccess), 1);  // the chat completion only
}

TEST(RenderEndpoint, BadBodiesGetTheEndpointsErrors) {
  ServerOptions o = test_options();
  o.engine.max_model_len = 64;
  auto server = start_server(o);
  const uint16_t port = server->port();
  struct Case {
    const char* path;
    const char* body;
    int status;
    const char* param;  // "" when the error names none
  };
  const std::vector<Case> cases = {
      {"/v1/completions/render", "{not json", 400, ""},
      {"/v1/completions/render", "[1,2]", 400, ""},
      {"/v1/completions/render", R"({"max_tokens":3})", 400, "prompt"},
      {"/v1/completions/render", R"({"prompt":"a","model":"other"})", 404, "model"},
      {"/v1/completions/render", R"({"prompt":[1,2,3],"max_tokens":62})", 400, ""},
      {"/v1/completions/render", R"({"prompt":"a","n":"two"})", 400, "n"},
      {"/v1/chat/completions/render", R"({"prompt":"a"})", 400, "messages"},
      {"/v1/chat/completions/render", R"({"messages":[]})", 400, "messages"},
      {"/v1/chat/completions/render", R"({"messages":[{"content":"x"}]})", 400, "messages[0]"},
      {"/v1/chat/completions/render",
       R"({"messages":[{"role":"user","content":"x"}],"tools":[{}]})", 400, "tools[0]"},
  };
  for (const Case& c : cases) {
    const auto r = request(port, "POST", c.path, c.body);
    ASSERT_EQ(r.status, c.status) << c.path << " " << c.body << "\n" << r.body;
    const json error = json::parse(r.body)["error"];
    EXPECT_EQ(error["code"], c.status) << c.body;
    EXPECT_FALSE(error["message"].get<std::string>().empty()) << c.body;
    if (*c.param) {
      EXPECT_EQ(error["param"], c.param) << c.body;
    }
  }
  EXPECT_EQ(request(port, "GET", "/v1/completions/render").status, 405);
  EXPECT_EQ(request(port, "POST", "/v1/chat/completions/render", R"({"messages":[]})",
                    {{"Content-Type", "text/plain"}})
                .status,
            400);
}

}  // namespace
}  // namespace llm
