// Log-probabilities over the wire (an in-process llmserve with the sim backend): the OpenAI shapes
// of completions `logprobs`/`echo` and chat `logprobs`/`top_logprobs`, streaming and not, and
// vLLM's 400s for what it refuses.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using ordered_json = nlohmann::ordered_json;  // keeps the order of the keys as sent
using testing::request;
using testing::start_server;
using testing::test_options;

const std::string kLogprobsChat = R"({"messages":[{"role":"user","content":"Hello there"}])";

ordered_json post_json(uint16_t port, const std::string& path, const std::string& body,
                       int status = 200) {
  const auto r = request(port, "POST", path, body);
  EXPECT_EQ(r.status, status) << body << " -> " << r.body;
  return ordered_json::parse(r.body);
}

// The JSON chunks of an SSE body (not [DONE]).
std::vector<ordered_json> chunks(const std::string& body) {
  std::vector<ordered_json> out;
  for (size_t pos = body.find("data: {"); pos != std::string::npos;
       pos = body.find("data: {", pos + 1)) {
    out.push_back(ordered_json::parse(body.substr(pos + 6, body.find("\n\n", pos) - pos - 6)));
  }
  return out;
}

void expect_valid_completion_logprobs(const ordered_json& lp, size_t first_scored, size_t k) {
  const size_t n = lp["tokens"].size();
  ASSERT_EQ(lp["token_logprobs"].size(), n);
  ASSERT_EQ(lp["top_logprobs"].size(), n);
  ASSERT_EQ(lp["text_offset"].size(), n);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) {
      EXPECT_EQ(lp["text_offset"][i].get<int64_t>(),
                lp["text_offset"][i - 1].get<int64_t>() +
                    static_cast<int64_t>(lp["tokens"][i - 1].get<std::string>().size()));
    }
    if (i < first_scored) {
      EXPECT_TRUE(lp["token_logprobs"][i].is_null());
      EXPECT_TRUE(lp["top_logprobs"][i].is_null());
      continue;
    }
    EXPECT_LE(lp["token_logprobs"][i].get<double>(), 0.0);
    const ordered_json& top = lp["top_logprobs"][i];
    ASSERT_TRUE(top.is_object());
    // The token's own entry and the top k (one fewer when it is among them).
    EXPECT_GE(top.size(), std::max<size_t>(k, 1));
    EXPECT_LE(top.size(), k + 1);
    EXPECT_EQ(top.begin().key(), lp["tokens"][i]);
    EXPECT_EQ(top.begin().value(), lp["token_logprobs"][i]);
  }
}

TEST(LogprobsApi, CompletionsListEveryOutputTokenWithItsTopK) {
  auto server = start_server(test_options());
  const ordered_json j =
      post_json(server->port(), "/v1/completions",
                R"({"prompt":"a b c","max_tokens":5,"ignore_eos":true,"logprobs":2})");
  const ordered_json& lp = j["choices"][0]["logprobs"];
  ASSERT_EQ(lp["tokens"].size(), 5u);
  expect_valid_completion_logprobs(lp, 0, 2);
  std::string joined;
  for (const auto& t : lp["tokens"]) joined += t.get<std::string>();
  EXPECT_EQ(joined, j["choices"][0]["text"]);
  EXPECT_EQ(lp["text_offset"][0], 0);
  EXPECT_FALSE(j["choices"][0].contains("prompt_logprobs"));
  // The same request gives the same values (the sim's logprobs are deterministic).
  const ordered_json again =
      post_json(server->port(), "/v1/completions",
                R"({"prompt":"a b c","max_tokens":5,"ignore_eos":true,"logprobs":2})");
  EXPECT_EQ(again["choices"][0]["logprobs"], lp);
  // logprobs 0: the token's own entry only.
  const ordered_json zero =
      post_json(server->port(), "/v1/completions",
                R"({"prompt":"a b c","max_tokens":3,"ignore_eos":true,"logprobs":0})");
  for (const auto& top : zero["choices"][0]["logprobs"]["top_logprobs"]) EXPECT_EQ(top.size(), 1u);
  // Without logprobs the field stays null.
  const ordered_json none =
      post_json(server->port(), "/v1/completions", R"({"prompt":"a b c","max_tokens":3})");
  EXPECT_TRUE(none["choices"][0]["logprobs"].is_null());
}

TEST(LogprobsApi, EchoWithMaxTokensZeroScoresThePromptAsEvaluationHarnessesDo) {
  auto server = start_server(test_options());
  const ordered_json j =
      post_json(server->port(), "/v1/completions",
                R"({"prompt":"the quick brown fox","max_tokens":0,"echo":true,"logprobs":2})");
  const ordered_json& c = j["choices"][0];
  EXPECT_EQ(c["text"], "the quick brown fox");
  const int64_t prompt_tokens = j["usage"]["prompt_tokens"];
  ASSERT_EQ(c["logprobs"]["tokens"].size(), static_cast<size_t>(prompt_tokens));
  expect_valid_completion_logprobs(c["logprobs"], 1, 2);
  // vLLM generates one token it does not show, and counts it.
  EXPECT_EQ(j["usage"]["completion_tokens"], 1);
  EXPECT_EQ(c["finish_reason"], "length");
  // echo with logprobs asks for prompt logprobs: vLLM's per-choice list, null first.
  ASSERT_EQ(c["prompt_logprobs"].size(), static_cast<size_t>(prompt_tokens));
  EXPECT_TRUE(c["prompt_logprobs"][0].is_null());
  for (size_t p = 1; p < c["prompt_logprobs"].size(); ++p) {
    EXPECT_EQ(c["prompt_logprobs"][p].begin().value()["logprob"],
              c["logprobs"]["token_logprobs"][p]);
  }
}

TEST(LogprobsApi, EchoPutsThePromptBeforeTheCompletion) {
  auto server = start_server(test_options());
  const ordered_json plain = post_json(server->port(), "/v1/completions",
                                       R"({"prompt":"a b c","max_tokens":3,"ignore_eos":true})");
  const ordered_json echo =
      post_json(server->port(), "/v1/completions",
                R"({"prompt":"a b c","max_tokens":3,"ignore_eos":true,"echo":true})");
  EXPECT_EQ(echo["choices"][0]["text"], "a b c" + plain["choices"][0]["text"].get<std::string>());
  EXPECT_TRUE(echo["choices"][0]["logprobs"].is_null());
  const ordered_json scored =
      post_json(server->port(), "/v1/completions",
                R"({"prompt":"a b c","max_tokens":3,"ignore_eos":true,"echo":true,"logprobs":1})");
  const ordered_json& lp = scored["choices"][0]["logprobs"];
  EXPECT_EQ(lp["tokens"].size(), scored["usage"]["total_tokens"].get<size_t>());
  expect_valid_completion_logprobs(lp, 1, 1);
}

TEST(LogprobsApi, ChatContentHasTokenLogprobBytesAndTopLogprobs) {
  auto server = start_server(test_options());
  const ordered_json j = post_json(
      server->port(), "/v1/chat/completions",
      kLogprobsChat + R"(,"max_tokens":4,"ignore_eos":true,"logprobs":true,"top_logprobs":3})");
  const ordered_json& content = j["choices"][0]["logprobs"]["content"];
  ASSERT_EQ(content.size(), 4u);
  std::string joined;
  for (const ordered_json& e : content) {
    const std::string token = e["token"];
    joined += token;
    EXPECT_LE(e["logprob"].get<double>(), 0.0);
    std::vector<int> bytes(token.begin(), token.end());
    for (int& b : bytes) b &= 0xFF;
    EXPECT_EQ(e["bytes"], ordered_json(bytes));
    ASSERT_EQ(e["top_logprobs"].size(), 3u);
    for (const ordered_json& t : e["top_logprobs"]) {
      EXPECT_TRUE(t.contains("token") && t.contains("logprob") && t.contains("bytes")) << t;
    }
  }
  EXPECT_EQ(joined, j["choices"][0]["message"]["content"]);
  // logprobs true alone: the chosen tokens with empty top lists (top_logprobs defaults to 0).
  const ordered_json bare =
      post_json(server->port(), "/v1/chat/completions",
                kLogprobsChat + R"(,"max_tokens":2,"ignore_eos":true,"logprobs":true})");
  for (const ordered_json& e : bare["choices"][0]["logprobs"]["content"]) {
    EXPECT_TRUE(e["top_logprobs"].empty());
  }
  const ordered_json off =
      post_json(server->port(), "/v1/chat/completions", kLogprobsChat + R"(,"max_tokens":2})");
  EXPECT_TRUE(off["choices"][0]["logprobs"].is_null());
}

TEST(LogprobsApi, StreamedChunksCarryTheirTokensLogprobs) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  auto r = request(port, "POST", "/v1/completions",
                   R"({"prompt":"a b c","max_tokens":4,"ignore_eos":true,"logprobs":1,)"
                   R"("echo":true,"stream":true})");
  size_t tokens = 0;
  int64_t offset = 0;
  std::string text;
  for (const ordered_json& c : chunks(r.body)) {
    const ordered_json& choice = c["choices"][0];
    const ordered_json& lp = choice["logprobs"];
    ASSERT_TRUE(lp.is_object()) << c;
    if (!lp["text_offset"].empty()) {
      EXPECT_EQ(lp["text_offset"][0], offset);
    }
    tokens += lp["tokens"].size();
    offset += static_cast<int64_t>(choice["text"].get<std::string>().size());  // ASCII text
    text += choice["text"].get<std::string>();
  }
  const ordered_json whole =
      post_json(port, "/v1/completions",
                R"({"prompt":"a b c","max_tokens":4,"ignore_eos":true,"logprobs":1,)"
                R"("echo":true})");
  EXPECT_EQ(text, whole["choices"][0]["text"]);
  EXPECT_EQ(tokens, whole["choices"][0]["logprobs"]["tokens"].size());

  r = request(port, "POST", "/v1/chat/completions",
              kLogprobsChat +
                  R"(,"max_tokens":4,"ignore_eos":true,"logprobs":true,"top_logprobs":2,)"
                  R"("stream":true})");
  size_t entries = 0;
  for (const ordered_json& c : chunks(r.body)) {
    const ordered_json& lp = c["choices"][0]["logprobs"];
    if (c["choices"][0]["delta"].contains("role")) {
      EXPECT_TRUE(lp.is_null());
      continue;
    }
    ASSERT_TRUE(lp.is_object()) << c;
    entries += lp["content"].size();
  }
  EXPECT_EQ(entries, 4u);
}

TEST(LogprobsApi, OutOfRangeRequestsGetVllmsBadRequest) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  struct Row {
    const char* path;
    std::string body;
    const char* param;
    const char* message;
  };
  const std::string chat = "/v1/chat/completions", cmpl = "/v1/completions";
  const Row rows[] = {
      {"/v1/completions", R"({"prompt":"a","logprobs":21})", "logprobs",
       "Requested sample logprobs of 21, which is greater than max allowed: 20"},
      {"/v1/completions", R"({"prompt":"a","logprobs":-2})", "logprobs",
       "`logprobs` must be a positive value or -1."},
      {"/v1/completions", R"({"prompt":"a","logprobs":"3"})", "logprobs",
       "`logprobs` must be an integer."},
      {"/v1/completions", R"({"prompt":"a","max_tokens":0})", "max_tokens",
       "'max_tokens' must be at least 1, got 0"},
      {"/v1/completions", R"({"prompt":"a","prompt_logprobs":1,"stream":true})", "prompt_logprobs",
       "`prompt_logprobs` are not available when `stream=True`."},
      {"/v1/completions", R"({"prompt":"a","prompt_logprobs":30})", "prompt_logprobs",
       "Requested prompt logprobs of 30, which is greater than max allowed: 20"},
      {"/v1/chat/completions", kLogprobsChat + R"(,"top_logprobs":2})", "top_logprobs",
       "when using `top_logprobs`, `logprobs` must be set to true."},
      {"/v1/chat/completions", kLogprobsChat + R"(,"logprobs":true,"top_logprobs":21})",
       "top_logprobs", "Requested sample logprobs of 21, which is greater than max allowed: 20"},
      {"/v1/chat/completions", kLogprobsChat + R"(,"logprobs":"yes"})", "logprobs",
       "'logprobs' must be a boolean"},
      {"/v1/chat/completions", kLogprobsChat + R"(,"echo":true})", "echo",
       "'echo' is not supported by this server"},
  };
  for (const Row& row : rows) {
    const ordered_json j = post_json(port, row.path, row.body, 400);
    EXPECT_EQ(j["error"]["param"], row.param) << row.body;
    EXPECT_EQ(j["error"]["message"], row.message) << row.body;
  }
  // -1 is the whole vocabulary, which the cap refuses too.
  const ordered_json all =
      post_json(port, "/v1/completions", R"({"prompt":"a","logprobs":-1})", 400);
  EXPECT_NE(all["error"]["message"].get<std::string>().find("greater than max allowed: 20"),
            std::string::npos);
}

TEST(LogprobsApi, ChatPromptLogprobsAreVllmsTopLevelList) {
  auto server = start_server(test_options());
  const ordered_json j = post_json(server->port(), "/v1/chat/completions",
                                   kLogprobsChat + R"(,"max_tokens":2,"prompt_logprobs":1})");
  const ordered_json& p = j["prompt_logprobs"];
  ASSERT_EQ(p.size(), j["usage"]["prompt_tokens"].get<size_t>());
  EXPECT_TRUE(p[0].is_null());
  for (size_t i = 1; i < p.size(); ++i) {
    ASSERT_TRUE(p[i].is_object());
    EXPECT_GE(p[i].size(), 1u);
    EXPECT_LE(p[i].size(), 2u);
    EXPECT_TRUE(p[i].begin().value().contains("rank"));
  }
  EXPECT_TRUE(j["choices"][0]["logprobs"].is_null());
}

}  // namespace
}  // namespace llm
