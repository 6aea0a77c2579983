// render_response: vLLM's GenerateRequest shape for chat (one object) and completions (a list, one
// per prompt), with max_tokens resolved against the context as the engine would get it.
#include "server/api/render_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace llm {
namespace {

using json = nlohmann::json;

CompletionRequest two_prompts() {
  CompletionRequest r;
  r.endpoint = Endpoint::kCompletions;
  r.model = "m";
  r.prompts = {{1, 2, 3}, {4, 5}};
  r.max_tokens = 7;
  r.seed = 42;
  r.stop = {"\n"};
  r.stop_token_ids = {9};
  r.temperature = 0.5;
  r.priority = -1;
  r.cache_salt = "salt";
  r.controls.min_tokens = 3;
  r.controls.logit_bias = {{4, -2.5f}};
  r.controls.repetition_penalty = 1.25;
  return r;
}

TEST(RenderResponse, CompletionsAnswerOneGenerateRequestPerPrompt) {
  const json body = json::parse(render_response(two_prompts(), "abc", 100));
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0]["request_id"], "cmpl-abc");
  EXPECT_EQ(body[1]["request_id"], "cmpl-abc-1");
  EXPECT_EQ(body[0]["token_ids"], json({1, 2, 3}));
  EXPECT_EQ(body[1]["token_ids"], json({4, 5}));
  for (const json& g : body) {
    EXPECT_EQ(g["model"], "m");
    EXPECT_TRUE(g["features"].is_null());
    EXPECT_TRUE(g["kv_transfer_params"].is_null());
    EXPECT_EQ(g["stream"], false);
    EXPECT_TRUE(g["stream_options"].is_null());
    EXPECT_EQ(g["cache_salt"], "salt");
    EXPECT_EQ(g["priority"], -1);
    const json& p = g["sampling_params"];
    EXPECT_EQ(p["max_tokens"], 7);
    EXPECT_EQ(p["min_tokens"], 3);
    EXPECT_EQ(p["logit_bias"], json({{"4", -2.5}}));
    EXPECT_EQ(p["repetition_penalty"], 1.25);
    EXPECT_EQ(p["presence_penalty"], 0.0);
    EXPECT_TRUE(p["allowed_token_ids"].is_null());
    EXPECT_EQ(p["seed"], 42);
    EXPECT_EQ(p["stop"], json({"\n"}));
    EXPECT_EQ(p["stop_token_ids"], json({9}));
    EXPECT_EQ(p["temperature"], 0.5);
    EXPECT_TRUE(p["logprobs"].is_null());
  }
}

TEST(RenderResponse, ChatAnswersOneObjectAndResolvesMaxTokensPerPrompt) {
  CompletionRequest r = two_prompts();
  r.endpoint = Endpoint::kChat;
  r.prompts = {{10, 11, 12, 13}};
  r.max_tokens.reset();  // the context's room: 100 - 4
  r.seed.reset();
  r.cache_salt.clear();
  r.stream = true;
  r.include_usage = true;
  const json g = json::parse(render_response(r, "xyz", 100));
  ASSERT_TRUE(g.is_object());
  EXPECT_EQ(g["request_id"], "chatcmpl-xyz");
  EXPECT_EQ(g["token_ids"], json({10, 11, 12, 13}));
  EXPECT_EQ(g["sampling_params"]["max_tokens"], 96);
  EXPECT_TRUE(g["sampling_params"]["seed"].is_null());
  EXPECT_TRUE(g["cache_salt"].is_null());
  EXPECT_EQ(g["stream"], true);
  EXPECT_EQ(g["stream_options"],
            json({{"include_usage", true}, {"continuous_usage_stats", false}}));
}

}  // namespace
}  // namespace llm
