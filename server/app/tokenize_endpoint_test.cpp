// /tokenize and /detokenize over loopback, on the sim backend with SimTokenizer and with a real
// vocabulary (--tokenizer), and the startup errors of the tokenizer and chat-template flags.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/chat_template.h"
#include "backends/tokenizer/tokenizer.h"
#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::request;
using testing::start_server;
using testing::test_options;

json post(uint16_t port, const std::string& path, const json& body, int expect_status = 200) {
  const auto r = request(port, "POST", path, body.dump());
  EXPECT_EQ(r.status, expect_status) << path << " " << body.dump() << " -> " << r.body;
  return json::parse(r.body);
}

ServerOptions with_tokenizer(const std::string& vocab, const std::string& chat_template) {
  ServerOptions o = test_options();
  o.tokenizer = testing::vocab_path(vocab);
  o.chat_template = chat_template;
  return o;
}

std::string startup_error(const ServerOptions& o) {
  try {
    LlmServer server(o);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(TokenizeApi, SimTokenizerShapesAndErrors) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const json t = post(port, "/tokenize", {{"prompt", "Hello there, world"}});
  EXPECT_EQ(t["count"], 4);  // "Hello" " there" "," " world"
  EXPECT_EQ(t["tokens"].size(), 4u);
  EXPECT_EQ(t["max_model_len"], server->context().setup.scheduler.max_model_len);
  EXPECT_TRUE(t.contains("token_strs") && t["token_strs"].is_null());
  // Field order as vLLM's pydantic model.
  const std::string raw = request(port, "POST", "/tokenize", R"({"prompt":"a"})").body;
  EXPECT_LT(raw.find("\"count\""), raw.find("\"max_model_len\""));
  EXPECT_LT(raw.find("\"max_model_len\""), raw.find("\"tokens\""));

  // A chat's count is the prompt_tokens of the same chat request.
  const json messages = json::array({{{"role", "user"}, {"content", "Hello there"}}});
  const json c = post(port, "/tokenize", {{"messages", messages}});
  const json chat = post(port, "/v1/chat/completions", {{"messages", messages}, {"max_tokens", 2}});
  EXPECT_EQ(c["count"], chat["usage"]["prompt_tokens"]);
  const json no_gen =
      post(port, "/tokenize", {{"messages", messages}, {"add_generation_prompt", false}});
  EXPECT_LT(no_gen["count"], c["count"]);

  const json d = post(port, "/detokenize", {{"tokens", {0, 1, 2}}});
  EXPECT_EQ(d["prompt"], " the of and");  // the synthetic output vocabulary

  auto error = [&](const std::string& path, const json& body, int status) {
    const json e = post(port, path, body, status);
    return e["error"]["param"].is_null() ? std::string() : e["error"]["param"].get<std::string>();
  };
  EXPECT_EQ(error("/tokenize", json::object(), 400), "prompt");
  EXPECT_EQ(error("/tokenize", {{"prompt", "a"}, {"messages", messages}}, 400), "messages");
  EXPECT_EQ(error("/tokenize", {{"prompt", 3}}, 400), "prompt");
  EXPECT_EQ(error("/tokenize", {{"prompt", "a"}, {"model", "other"}}, 404), "model");
  EXPECT_EQ(error("/tokenize", {{"messages", json::array()}}, 400), "messages");
  EXPECT_EQ(error("/detokenize", json::object(), 400), "tokens");
  EXPECT_EQ(error("/detokenize", {{"tokens", "1 2"}}, 400), "tokens");
  EXPECT_EQ(error("/detokenize", {{"tokens", {1, -1}}}, 400), "tokens");
  EXPECT_EQ(error("/detokenize", {{"tokens", {128256}}}, 400), "tokens");
  EXPECT_EQ(error("/detokenize", {{"tokens", {1}}, {"model", "x"}}, 404), "model");
  EXPECT_EQ(request(port, "GET", "/tokenize").status, 405);
  EXPECT_EQ(request(port, "POST", "/tokenize", "{bad").status, 400);
}

// vLLM's --api-key guards /v1, /v2, /inference and /cohere only: its root-level tokenizer routes
// answer without the key (vllm/entrypoints/serve/utils/server_utils.py).
TEST(TokenizeApi, TheApiKeyLeavesTheTokenizerRoutesOpenAsVllmDoes) {
  ServerOptions o = test_options();
  o.api_key = "k";
  auto server = start_server(o);
  const uint16_t port = server->port();
  EXPECT_EQ(request(port, "POST", "/tokenize", R"({"prompt":"a"})").status, 200);
  EXPECT_EQ(request(port, "POST", "/detokenize", R"({"tokens":[1]})").status, 200);
  EXPECT_EQ(request(port, "POST", "/v1/completions/render", R"({"prompt":"a"})").status, 401);
}

TEST(TokenizeApi, RealVocabularyCountsAreTheTokenizers) {
  if (!testing::have_tokenizer_data()) GTEST_SKIP() << "no shared tokenizer data";
  for (const std::string vocab : {"llama-spm", "llama-bpe", "qwen2"}) {
    SCOPED_TRACE(vocab);
    const std::string tmpl = vocab == "llama-spm" ? "llama2"
                             : vocab == "qwen2"   ? "chatml"
                                                  : "llama3";
    auto server = start_server(with_tokenizer(vocab, tmpl));
    const uint16_t port = server->port();
    const auto tok = load_tokenizer(testing::vocab_path(vocab));
    const std::string text = "Hello world! Ünïcödé 世界 🙂 <|im_start|>";

    json t = post(port, "/tokenize", {{"prompt", text}});
    const std::vector<int32_t> ids = tok->encode(text, true, true);
    EXPECT_EQ(t["tokens"].get<std::vector<int32_t>>(), ids);
    EXPECT_EQ(t["count"], ids.size());
    t = post(port, "/tokenize",
             {{"prompt", text}, {"add_special_tokens", false}, {"return_token_strs", true}});
    EXPECT_EQ(t["tokens"].get<std::vector<int32_t>>(), tok->encode(text, false, true));
    ASSERT_EQ(t["token_strs"].size(), t["tokens"].size());
    EXPECT_EQ(t["token_strs"][0], tok->vocab().tokens[t["tokens"][0].get<size_t>()]);

    // Chat: the template's text with special tokens parsed, none added.
    const json messages = json::array({{{"role", "system"}, {"content", "Be brief."}},
                                       {{"role", "user"}, {"content", "Hi there"}}});
    const std::vector<ChatMessage> m = {{"system", "Be brief."}, {"user", "Hi there"}};
    const std::vector<int32_t> chat_ids =
        tok->encode(render_chat(*parse_chat_template_name(tmpl), m, true), false, true);
    t = post(port, "/tokenize", {{"messages", messages}});
    EXPECT_EQ(t["tokens"].get<std::vector<int32_t>>(), chat_ids);
    const json chat =
        post(port, "/v1/chat/completions", {{"messages", messages}, {"max_tokens", 3}});
    EXPECT_EQ(chat["usage"]["prompt_tokens"], chat_ids.size());
    const json comp = post(port, "/v1/completions", {{"prompt", text}, {"max_tokens", 3}});
    EXPECT_EQ(comp["usage"]["prompt_tokens"], ids.size());

    // /detokenize keeps special tokens, as Hugging Face's decode does by default.
    const json d = post(port, "/detokenize", {{"tokens", ids}});
    EXPECT_EQ(d["prompt"], tok->decode(ids, false));
    EXPECT_EQ(post(port, "/detokenize", {{"tokens", {tok->vocab_size()}}}, 400)["error"]["param"],
              "tokens");
  }
}

TEST(TokenizeApi, SimOutputIsTheTokenizersTextAndEndsWithItsEos) {
  if (!testing::have_tokenizer_data()) GTEST_SKIP() << "no shared tokenizer data";
  auto server = start_server(with_tokenizer("llama-spm", "llama2"));
  const uint16_t port = server->port();
  const auto tok = load_tokenizer(testing::vocab_path("llama-spm"));
  EXPECT_EQ(server->context().setup.deployment.model.vocab, tok->vocab_size());
  // Without max_tokens the sim model stops by itself: with the tokenizer's eos, as "stop".
  int stopped = 0;
  for (int i = 0; i < 4; ++i) {
    const json r = post(port, "/v1/completions",
                        {{"prompt", "Once upon a time " + std::to_string(i)}, {"seed", i}});
    const json& choice = r["choices"][0];
    if (choice["finish_reason"] == "stop" && choice["stop_reason"].is_null()) ++stopped;
    EXPECT_GE(r["usage"]["completion_tokens"], 8);
    EXPECT_EQ(choice["text"].get<std::string>().find("</s>"), std::string::npos);
  }
  EXPECT_EQ(stopped, 4);
}

TEST(TokenizeApi, Llama3EotEndsSequencesUnlessIgnoreEos) {
  if (!testing::have_tokenizer_data()) GTEST_SKIP() << "no shared tokenizer data";
  auto server = start_server(with_tokenizer("llama-bpe", "llama3"));
  const auto tok = load_tokenizer(testing::vocab_path("llama-bpe"));
  const int32_t eot = tok->vocab().find("<|eot_id|>");
  ASSERT_GE(eot, 0);
  if (tok->eot_id() != eot) GTEST_SKIP() << "the vocabulary does not mark <|eot_id|> as eot";
  const auto& extra = server->api().extra_stop_token_ids;
  EXPECT_NE(std::find(extra.begin(), extra.end(), eot), extra.end());
}

TEST(TokenizeApi, StartupErrorsNameTheFlag) {
  if (!testing::have_tokenizer_data()) GTEST_SKIP() << "no shared tokenizer data";
  // The test vocabularies carry no chat template: one must be named.
  std::string e = startup_error(with_tokenizer("llama-bpe", ""));
  EXPECT_NE(e.find("--chat-template"), std::string::npos) << e;
  e = startup_error(with_tokenizer("no-such-vocab", "llama3"));
  EXPECT_NE(e.find("--tokenizer"), std::string::npos) << e;
  ServerOptions o = test_options();
  o.backend = "cpu";
  o.engine.model = "/no/such/model.gguf";
  e = startup_error(o);
  EXPECT_NE(e.find("--model /no/such/model.gguf"), std::string::npos) << e;
}

}  // namespace
}  // namespace llm
