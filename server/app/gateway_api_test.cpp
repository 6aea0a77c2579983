// What a model server behind the Gateway API Inference Extension / llm-d must do on the request
// path: echo the requested model name exactly, ignore the gateway's own headers, report cached
// prompt tokens in usage as vLLM does (--enable-prompt-tokens-details), send the final usage chunk
// with include_usage, and set llm-d's x-inference-pod / -namespace / -port response headers from
// POD_NAME and POD_NAMESPACE.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::request;
using testing::sse_frames;
using testing::start_server;
using testing::test_options;

const std::map<std::string, std::string> kNoHeaders;

TEST(GatewayApi, TheRequestedModelNameIsEchoedExactlyInEveryShape) {
  ServerOptions o = test_options();
  o.served_model_name = "meta-llama/Llama-3.1-8B-Instruct";
  auto server = start_server(o);
  const uint16_t port = server->port();
  const std::string model = R"("model":"meta-llama/Llama-3.1-8B-Instruct")";
  struct Case {
    const char* path;
    std::string body;
    bool stream;
  };
  const std::vector<Case> cases = {
      {"/v1/completions", "{" + model + R"(,"prompt":"a b","max_tokens":2})", false},
      {"/v1/completions", "{" + model + R"(,"prompt":"a b","max_tokens":2,"stream":true})", true},
      {"/v1/chat/completions",
       "{" + model + R"(,"messages":[{"role":"user","content":"hi"}],"max_tokens":2})", false},
      {"/v1/chat/completions",
       "{" + model +
           R"(,"messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stream":true,)" +
           R"("stream_options":{"include_usage":true}})",
       true},
  };
  for (const Case& c : cases) {
    const auto r = request(port, "POST", c.path, c.body);
    ASSERT_EQ(r.status, 200) << c.body << "\n" << r.body;
    if (!c.stream) {
      EXPECT_EQ(json::parse(r.body)["model"], "meta-llama/Llama-3.1-8B-Instruct") << c.body;
      continue;
    }
    const std::vector<json> chunks = sse_frames(r.body);
    ASSERT_FALSE(chunks.empty());
    for (const json& chunk : chunks) {
      EXPECT_EQ(chunk["model"], "meta-llama/Llama-3.1-8B-Instruct") << chunk;
    }
  }
  // Another name (a near miss too) is vLLM's 404; no model at all answers with the served name.
  for (const char* other : {"Llama-3.1-8B", "meta-llama/Llama-3.1-8B-instruct"}) {
    const auto r = request(port, "POST", "/v1/completions",
                           R"({"model":")" + std::string(other) + R"(","prompt":"a"})");
    EXPECT_EQ(r.status, 404) << other;
  }
  const auto r = request(port, "POST", "/v1/completions", R"({"prompt":"a","max_tokens":1})");
  EXPECT_EQ(json::parse(r.body)["model"], "meta-llama/Llama-3.1-8B-Instruct");
}

TEST(GatewayApi, GatewayAndLlmdHeadersAreIgnored) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const std::string body = R"({"prompt":"one two three","max_tokens":5,"ignore_eos":true})";
  const auto plain = request(port, "POST", "/v1/completions", body);
  ASSERT_EQ(plain.status, 200);
  const auto routed =
      request(port, "POST", "/v1/completions", body,
              {{"x-gateway-destination-endpoint", "10.0.0.7:8000"},
               {"x-gateway-inference-objective", "premium"},
               {"x-gateway-inference-fairness-id", "tenant-a"},
               {"x-llm-d-prefill-host", "10.0.0.9:8000"},
               {"x-llm-d-unknown", "anything"},
               {"traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}});
  ASSERT_EQ(routed.status, 200) << routed.body;
  const json a = json::parse(plain.body), b = json::parse(routed.body);
  EXPECT_EQ(a["choices"], b["choices"]);
  EXPECT_EQ(a["usage"], b["usage"]);
}

TEST(GatewayApi, PromptTokensDetailsAppearInUsageOnlyWithTheFlag) {
  // 40 prompt token ids: two full 16-token blocks can be served from the prefix cache.
  std::string ids;
  for (int i = 0; i < 40; ++i) ids += (i ? "," : "") + std::to_string(1000 + i);
  const std::string body = R"({"prompt":[)" + ids + R"(],"max_tokens":2,"ignore_eos":true)";
  const std::string stream = R"(,"stream":true,"stream_options":{"include_usage":true})";
  for (bool flag : {false, true}) {
    ServerOptions o = test_options();
    o.enable_prompt_tokens_details = flag;
    auto server = start_server(o);
    const uint16_t port = server->port();
    // The first request computes its whole prompt and writes its two full blocks into the cache.
    json first = json::parse(request(port, "POST", "/v1/completions", body + "}").body);
    if (flag) {
      EXPECT_EQ(first["usage"]["prompt_tokens_details"],
                json({{"cached_tokens", 0}, {"created_cache_tokens", 32}}))
          << first["usage"];
    } else {
      EXPECT_FALSE(first["usage"].contains("prompt_tokens_details")) << first["usage"];
    }
    json second = json::parse(request(port, "POST", "/v1/completions", body + "}").body);
    const auto streamed =
        sse_frames(request(port, "POST", "/v1/completions", body + stream + "}").body);
    ASSERT_FALSE(streamed.empty());
    const json& last = streamed.back();
    ASSERT_TRUE(last.contains("usage")) << last;
    EXPECT_EQ(last["choices"], json::array());  // the final usage chunk of include_usage
    if (!flag) {
      EXPECT_FALSE(second["usage"].contains("prompt_tokens_details")) << second["usage"];
      EXPECT_FALSE(last["usage"].contains("prompt_tokens_details")) << last;
      continue;
    }
    // The later ones find both blocks and write nothing (the 8-token tail fills no block).
    const json hit = {{"cached_tokens", 32}, {"created_cache_tokens", 0}};
    EXPECT_EQ(second["usage"]["prompt_tokens_details"], hit) << second["usage"];
    EXPECT_EQ(last["usage"]["prompt_tokens_details"], hit) << last;
    EXPECT_EQ(second["usage"]["prompt_tokens"], 40);
    // Only the final chunk carries usage: the token chunks do not.
    for (size_t i = 0; i + 1 < streamed.size(); ++i) EXPECT_FALSE(streamed[i].contains("usage"));
  }
}

TEST(GatewayApi, PodHeadersComeFromTheEnvironmentAndTheServingPort) {
  struct Case {
    const char* pod;
    const char* ns;
  };
  for (const Case& c : {Case{nullptr, nullptr}, Case{"llmserve-7d9f-abc", nullptr},
                        Case{"llmserve-7d9f-abc", "inference"}, Case{nullptr, "inference"}}) {
    if (c.pod)
      setenv("POD_NAME", c.pod, 1);
    else
      unsetenv("POD_NAME");
    if (c.ns)
      setenv("POD_NAMESPACE", c.ns, 1);
    else
      unsetenv("POD_NAMESPACE");
    auto server = start_server(test_options());
    unsetenv("POD_NAME");
    unsetenv("POD_NAMESPACE");
    const uint16_t port = server->port();
    for (const char* body :
         {R"({"prompt":"a","max_tokens":1})", R"({"prompt":"a","max_tokens":1,"stream":true})"}) {
      const auto r = request(port, "POST", "/v1/completions", body);
      ASSERT_EQ(r.status, 200);
      EXPECT_EQ(r.header("x-inference-pod"), c.pod ? c.pod : "") << body;
      EXPECT_EQ(r.header("x-inference-port"), c.pod ? std::to_string(port) : "") << body;
      EXPECT_EQ(r.header("x-inference-namespace"), c.ns ? c.ns : "") << body;
    }
  }
}

}  // namespace
}  // namespace llm
