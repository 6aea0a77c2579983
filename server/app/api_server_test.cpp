// Integration tests over loopback: an in-process llmserve on port 0 with zero-cost (or scaled)
// steps, driven by a raw-socket client that sees the bytes on the wire. (The transport's own
// behaviour, keep-alive, limits and timeouts, is tested in server/http/http_server_test.cpp.)
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "backends/sim/sim_backend.h"
#include "backends/sim/sim_tokenizer.h"
#include "core/rng.h"
#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::Connection;
using testing::eventually;
using testing::metric;
using testing::request;
using testing::start_server;
using testing::test_options;

const std::string kChatRequest =
    R"({"messages":[{"role":"user","content":"Hello there"}],"max_tokens":4)";

json parse(const std::string& body) { return json::parse(body); }

// Splits synthetic-vocabulary text into its token pieces (each starts with a space, or is ".").
std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  for (char c : text) {
    if (c == ' ' || c == '.' || out.empty()) out.emplace_back();
    out.back() += c;
  }
  return out;
}

// The id the sim model emits as output token `index` (n = 1, seed 0) for a token-id prompt: the
// engine's prompt salt (EngineService) and SimBackend::token_for, recomputed.
int32_t sim_output_token(LlmServer& server, const std::vector<int32_t>& prompt, int64_t index) {
  Request r;
  r.prompt_salt = 0x70726f6d7074ULL;
  for (int32_t t : prompt) r.prompt_salt = hash_combine(r.prompt_salt, static_cast<uint32_t>(t));
  const SimBackend sim(server.context().setup.deployment, server.context().options.seed);
  return sim.token_for(r, index);
}

// The request-log lines written to `path` so far.
std::vector<json> log_lines(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(parse(line));
  return out;
}

TEST(ApiServer, SimpleRoutes) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  auto health = request(port, "GET", "/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "");
  EXPECT_EQ(parse(request(port, "GET", "/version").body).contains("version"), true);
  const json models = parse(request(port, "GET", "/v1/models").body);
  EXPECT_EQ(models["object"], "list");
  EXPECT_EQ(models["data"][0]["id"], "Llama-3.1-8B");
  for (const char* path : {"/metrics", "/v1/metrics"}) {
    auto m = request(port, "GET", path);
    EXPECT_EQ(m.status, 200);
    EXPECT_EQ(m.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_NE(m.body.find("vllm:num_requests_running{engine=\"0\",model_name=\"Llama-3.1-8B\"}"),
              std::string::npos);
  }
}

// --served-model-name A B: /v1/models lists both (root --model), a request may name either and
// is answered under the first, which is also the metrics' model_name; any other name is a 404.
TEST(ApiServer, EveryServedNameIsListedAndAcceptedTheFirstAnswers) {
  ServerOptions o = test_options();
  o.served_model_name = "first";
  o.served_model_aliases = {"second"};
  auto server = start_server(o);
  const uint16_t port = server->port();
  const json models = parse(request(port, "GET", "/v1/models").body);
  ASSERT_EQ(models["data"].size(), 2u);
  EXPECT_EQ(models["data"][0]["id"], "first");
  EXPECT_EQ(models["data"][1]["id"], "second");
  EXPECT_EQ(models["data"][1]["root"], o.engine.model);
  EXPECT_NE(models["data"][0]["permission"][0]["id"], models["data"][1]["permission"][0]["id"]);
  for (const char* name : {"first", "second"}) {
    auto r = request(port, "POST", "/v1/chat/completions",
                     kChatRequest + R"(,"model":")" + name + "\"}");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(parse(r.body)["model"], "first") << name;
    r = request(
        port, "POST", "/v1/completions",
        std::string(R"({"prompt":"a","max_tokens":2,"stream":true,"model":")") + name + "\"}");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.body.find(R"("model":"first")"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find(R"("model":"second")"), std::string::npos) << r.body;
  }
  EXPECT_EQ(request(port, "POST", "/v1/completions", R"({"prompt":"a","model":"third"})").status,
            404);
  const std::string text = request(port, "GET", "/metrics").body;
  EXPECT_NE(
      text.find(
          R"(vllm:request_success_total{engine="0",finished_reason="length",model_name="first"} 4)"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find(R"(model_name="second")"), std::string::npos);
}

// vLLM's min_tokens on the simulated model: its EOS comes no earlier than the token after the
// first min_tokens, and the text of those tokens ends no stop string.
TEST(ApiServer, MinTokensHoldsEosAndStopStringsBack) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  auto complete = [port](const std::string& fields) {
    const auto r = request(port, "POST", "/v1/completions",
                           R"({"prompt":"Hello there","max_tokens":4000)" + fields + "}");
    EXPECT_EQ(r.status, 200) << r.body;
    return parse(r.body);
  };
  const json natural = complete("");
  ASSERT_EQ(natural["choices"][0]["finish_reason"], "stop") << natural;  // the model's EOS
  const int64_t n = natural["usage"]["completion_tokens"];
  ASSERT_GE(n, 3);
  const json held = complete(R"(,"min_tokens":)" + std::to_string(n + 5));
  EXPECT_EQ(held["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(held["usage"]["completion_tokens"], n + 6);
  const std::string text = natural["choices"][0]["text"];
  EXPECT_EQ(held["choices"][0]["text"].get<std::string>().rfind(text, 0), 0u)
      << "the same tokens first";
  const json early = complete(R"(,"min_tokens":)" + std::to_string(n - 2));
  EXPECT_EQ(early["usage"]["completion_tokens"], n) << "EOS was past min_tokens already";
  // A stop string in the first token's text: without min_tokens it cuts everything, with it the
  // text keeps that token.
  const std::string first = pieces(text).at(0);
  const json cut = complete(R"(,"stop":[")" + first + "\"]");
  EXPECT_EQ(cut["choices"][0]["text"], "");
  EXPECT_EQ(cut["choices"][0]["finish_reason"], "stop");
  const json kept = complete(R"(,"stop":[")" + first + R"("],"min_tokens":1)");
  EXPECT_EQ(kept["choices"][0]["text"].get<std::string>().rfind(first, 0), 0u) << kept;
  EXPECT_GT(kept["usage"]["completion_tokens"].get<int64_t>(), 1);
}

TEST(ApiServer, UnknownRouteAndWrongMethodUseTheEnvelope) {
  auto server = start_server(test_options());
  auto r = request(server->port(), "GET", "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(parse(r.body)["error"]["code"], 404);
  r = request(server->port(), "GET", "/v1/chat/completions");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(parse(r.body)["error"]["type"], "MethodNotAllowedError");
  r = request(server->port(), "POST", "/health", "{}");
  EXPECT_EQ(r.status, 405);
}

TEST(ApiServer, BadRequestsAre400And404WithMessages) {
  ServerOptions o = test_options();
  o.engine.max_model_len = 64;
  auto server = start_server(o);
  const uint16_t port = server->port();
  auto r = request(port, "POST", "/v1/chat/completions", "{not json");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r.body)["error"]["type"], "BadRequestError");
  r = request(port, "POST", "/v1/chat/completions",
              kChatRequest + R"(,"tools":[{"type":"function"}]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r.body)["error"]["param"], "tools[0]");  // the sim takes tools: a malformed one
  r = request(port, "POST", "/v1/completions",
              R"({"prompt":"a","stream_options":{"include_usage":true}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r.body)["error"]["param"], "stream_options");
  r = request(port, "POST", "/v1/completions", R"({"model":"x","prompt":"a"})");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(parse(r.body)["error"]["message"], "The model `x` does not exist.");
  r = request(port, "POST", "/v1/completions",
              R"({"prompt":[1,2,3,4,5,6,7,8,9,10],"max_tokens":60})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r.body)["error"]["message"],
            "'max_tokens' is too large: 60. This model's maximum context length is 64 tokens and "
            "your request has 10 input tokens (60 > 64 - 10).");
  // Without max_tokens the default is the context's room: 54 tokens at most.
  r = request(port, "POST", "/v1/completions",
              R"({"prompt":[1,2,3,4,5,6,7,8,9,10],"ignore_eos":true})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(parse(r.body)["usage"]["completion_tokens"], 54);
  EXPECT_EQ(parse(r.body)["choices"][0]["finish_reason"], "length");
}

// The request that used to end the process (an exception escaped a connection's handler): text that
// is not UTF-8 in a body, a path or a header. Each gets an answer, and the server goes on.
TEST(ApiServer, TextThatIsNotUtf8IsRefusedNamingTheFieldOrCarriedAsReplacementCharacters) {
  ServerOptions o = test_options();
  o.enable_request_id_headers = true;
  auto server = start_server(o);
  const uint16_t port = server->port();
  auto r = request(port, "POST", "/v1/completions", "{\"prompt\":\"\xff\xfe\",\"max_tokens\":3}");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r.body)["error"]["param"], "prompt");
  r = request(port, "POST", "/v1/chat/completions",
              "{\"messages\":[{\"role\":\"user\",\"content\":\"a\xc3\"}],\"max_tokens\":2}");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r.body)["error"]["param"], "messages[0].content");
  r = request(port, "POST", "/tokenize", "{\"prompt\":\"ok\",\"stop\":\"\xed\xa0\x80\"}");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(parse(r.body)["error"]["param"], "stop");
  r = request(port, "GET", "/v1/\xff\xfe");  // quoted in the 404 message
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(parse(r.body)["error"]["message"].get<std::string>().find("\xef\xbf\xbd"),
            std::string::npos);
  Connection c(port);
  c.send(
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nX-Request-Id: id\xff\r\n"
      "Content-Type: application/json\r\nContent-Length: 29\r\nConnection: close\r\n\r\n"
      "{\"prompt\":\"a\",\"max_tokens\":2}");
  const testing::Response echoed = c.read_response();
  EXPECT_EQ(echoed.status, 200);
  EXPECT_EQ(parse(echoed.body)["id"], "cmpl-id\xef\xbf\xbd");
  EXPECT_EQ(request(port, "POST", "/v1/completions", R"({"prompt":"a","max_tokens":2})").status,
            200);
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
}

TEST(ApiServer, ChatAndCompletionShapesAndUsage) {
  auto server = start_server(test_options());
  auto r = request(server->port(), "POST", "/v1/chat/completions", kChatRequest + "}",
                   {{"X-Request-Id", "abc"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json chat = parse(r.body);
  EXPECT_EQ(chat["id"], "chatcmpl-abc");
  EXPECT_EQ(chat["object"], "chat.completion");
  EXPECT_EQ(chat["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(pieces(chat["choices"][0]["message"]["content"]).size(), 4u);
  EXPECT_EQ(chat["choices"][0]["finish_reason"], "length");
  const SimTokenizer tok(128256);
  const int64_t prompt =
      static_cast<int64_t>(tok.encode("<|user|>\nHello there\n<|assistant|>\n").size());
  EXPECT_EQ(chat["usage"]["prompt_tokens"], prompt);
  EXPECT_EQ(chat["usage"]["completion_tokens"], 4);
  EXPECT_EQ(r.header("x-request-id"), "");  // not echoed without the flag

  r = request(server->port(), "POST", "/v1/completions",
              R"({"prompt":["one two","three"],"n":2,"max_tokens":3})");
  const json comp = parse(r.body);
  EXPECT_EQ(comp["object"], "text_completion");
  ASSERT_EQ(comp["choices"].size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(comp["choices"][i]["index"], i);
  EXPECT_EQ(comp["usage"]["prompt_tokens"], 3);  // each prompt once, not per choice
  EXPECT_EQ(comp["usage"]["completion_tokens"], 12);
  // Without ignore_eos the sim model stops by itself (finish_reason stop, text without eos).
  r = request(server->port(), "POST", "/v1/completions", R"({"prompt":"x"})");
  EXPECT_EQ(parse(r.body)["choices"][0]["finish_reason"], "stop");
  EXPECT_GE(parse(r.body)["usage"]["completion_tokens"], 8);
}

TEST(ApiServer, MetricsNullRules) {
  {
    auto server = start_server(test_options());
    const json off =
        parse(request(server->port(), "POST", "/v1/chat/completions", kChatRequest + "}").body);
    ASSERT_TRUE(off.contains("metrics"));
    EXPECT_TRUE(off["metrics"].is_null());
  }
  ServerOptions o = test_options();
  o.enable_per_request_metrics = true;
  auto server = start_server(o);
  const uint16_t port = server->port();
  const json on = parse(request(port, "POST", "/v1/chat/completions", kChatRequest + "}").body);
  ASSERT_TRUE(on["metrics"].is_object()) << on;
  for (const char* f : {"time_to_first_token_ms", "generation_time_ms", "queue_time_ms",
                        "mean_itl_ms", "tokens_per_second"}) {
    EXPECT_TRUE(on["metrics"][f].is_number()) << f;
  }
  EXPECT_EQ(on["metrics"].size(), 5u);
  const json n2 =
      parse(request(port, "POST", "/v1/chat/completions", kChatRequest + R"(,"n":2})").body);
  EXPECT_TRUE(n2.contains("metrics") && n2["metrics"].is_null());
  EXPECT_EQ(n2["choices"].size(), 2u);
  const json two = parse(
      request(port, "POST", "/v1/completions", R"({"prompt":["a","b"],"max_tokens":2})").body);
  EXPECT_TRUE(two.contains("metrics") && two["metrics"].is_null());
  const json one =
      parse(request(port, "POST", "/v1/completions", R"({"prompt":["a"],"max_tokens":1})").body);
  EXPECT_TRUE(one["metrics"].is_object());
  EXPECT_TRUE(one["metrics"]["mean_itl_ms"].is_null());  // N = 1
}

TEST(ApiServer, StreamingChunkSequenceByteByByte) {
  ServerOptions o = test_options();
  o.enable_per_request_metrics = true;
  auto server = start_server(o);
  const uint16_t port = server->port();
  const std::string body =
      R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":3,"seed":5)";
  const json whole = parse(request(port, "POST", "/v1/chat/completions", body + "}").body);
  const std::vector<std::string> words = pieces(whole["choices"][0]["message"]["content"]);
  ASSERT_EQ(words.size(), 3u);

  auto r = request(port, "POST", "/v1/chat/completions",
                   body + R"(,"stream":true,"stream_options":{"include_usage":true}})",
                   {{"X-Request-Id", "s1"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.chunked);
  EXPECT_EQ(r.header("content-type"), "text/event-stream; charset=utf-8");
  // Fix the two things that vary: the creation time and the timing values.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.body, m, std::regex("\"created\":([0-9]+)")));
  const std::string created = m[1];
  const std::regex metrics_re("\"metrics\":\\{[^}]*\\}");
  ASSERT_TRUE(std::regex_search(r.body, m, metrics_re));
  const json metrics = json::parse(m.str().substr(10));
  EXPECT_EQ(metrics.size(), 5u);
  EXPECT_TRUE(metrics["tokens_per_second"].is_number());
  const std::string actual = std::regex_replace(r.body, metrics_re, "\"metrics\":M");

  const std::string head =
      "data: {\"id\":\"chatcmpl-s1\",\"object\":\"chat.completion.chunk\","
      "\"created\":" +
      created + ",\"model\":\"Llama-3.1-8B\",";
  const int64_t prompt = whole["usage"]["prompt_tokens"];
  std::string expected =
      head +
      R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})"
      "\n\n";
  expected += head + R"("choices":[{"index":0,"delta":{"content":")" + words[0] +
              R"("},"logprobs":null,"finish_reason":null}]})"
              "\n\n";
  expected += head + R"("choices":[{"index":0,"delta":{"content":")" + words[1] +
              R"("},"logprobs":null,"finish_reason":null}]})"
              "\n\n";
  expected += head + R"("choices":[{"index":0,"delta":{"content":")" + words[2] +
              R"("},"logprobs":null,"finish_reason":"length","stop_reason":null}]})"
              "\n\n";
  expected += head + R"("choices":[],"usage":{"prompt_tokens":)" + std::to_string(prompt) +
              R"(,"total_tokens":)" + std::to_string(prompt + 3) +
              R"(,"completion_tokens":3},"metrics":M})"
              "\n\n";
  expected += "data: [DONE]\n\n";
  EXPECT_EQ(actual, expected);
}

TEST(ApiServer, StreamingUsageOptions) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const std::string stream = R"({"prompt":"a b c","max_tokens":3,"stream":true)";
  // No usage chunk unless asked.
  auto r = request(port, "POST", "/v1/completions", stream + "}");
  EXPECT_EQ(r.body.find("\"usage\""), std::string::npos);
  EXPECT_EQ(r.body.substr(r.body.size() - 14), "data: [DONE]\n\n");
  // Metrics are off: the usage chunk has no metrics key.
  r = request(port, "POST", "/v1/completions",
              stream + R"(,"stream_options":{"include_usage":true}})");
  EXPECT_NE(r.body.find("\"choices\":[],\"usage\""), std::string::npos);
  EXPECT_EQ(r.body.find("\"metrics\""), std::string::npos);
  // Continuous usage: every chunk carries cumulative usage.
  r = request(
      port, "POST", "/v1/completions",
      stream + R"(,"stream_options":{"include_usage":true,"continuous_usage_stats":true}})");
  int frames = 0;
  for (size_t pos = r.body.find("data: {"); pos != std::string::npos;
       pos = r.body.find("data: {", pos + 1)) {
    const json chunk = json::parse(r.body.substr(pos + 6, r.body.find("\n\n", pos) - pos - 6));
    ++frames;
    ASSERT_TRUE(chunk.contains("usage")) << chunk;
    EXPECT_EQ(chunk["usage"]["completion_tokens"], std::min(frames, 3));
  }
  EXPECT_EQ(frames, 4);  // three tokens and the usage chunk
  // Chat with n=2: each choice has its role chunk and its own finish chunk.
  r = request(port, "POST", "/v1/chat/completions",
              kChatRequest + R"(,"n":2,"stream":true,"stream_options":{"include_usage":true}})");
  auto count = [&](const std::string& s) {
    size_t n = 0;
    for (size_t p = r.body.find(s); p != std::string::npos; p = r.body.find(s, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\"role\":\"assistant\""), 2u);
  EXPECT_EQ(count("\"finish_reason\":\"length\""), 2u);
  EXPECT_EQ(count("\"completion_tokens\":8"), 1u);
}

TEST(ApiServer, ForceIncludeUsage) {
  ServerOptions o = test_options();
  o.enable_force_include_usage = true;
  o.enable_per_request_metrics = true;
  auto server = start_server(o);
  auto r = request(server->port(), "POST", "/v1/completions",
                   R"({"prompt":"a","max_tokens":2,"stream":true})");
  EXPECT_NE(r.body.find("\"choices\":[],\"usage\""), std::string::npos);
  EXPECT_NE(r.body.find("\"metrics\":{\"time_to_first_token_ms\""), std::string::npos);
  // Two prompts: usage, but the metrics are not attributable and are left out.
  r = request(server->port(), "POST", "/v1/completions",
              R"({"prompt":["a","b"],"max_tokens":2,"stream":true})");
  EXPECT_NE(r.body.find("\"choices\":[],\"usage\""), std::string::npos);
  EXPECT_EQ(r.body.find("\"metrics\""), std::string::npos);
}

TEST(ApiServer, StopStringsCutTheTextAndFinishTheChoice) {
  // Real (modelled) step times, so the stop string is seen long before the engine would reach
  // max_tokens on its own.
  ServerOptions o = test_options();
  o.step_time_scale = 1;
  auto server = start_server(o);
  const uint16_t port = server->port();
  const std::string base = R"({"prompt":"tell me","max_tokens":6,"ignore_eos":true)";
  const std::string full =
      parse(request(port, "POST", "/v1/completions", base + "}").body)["choices"][0]["text"];
  const std::vector<std::string> words = pieces(full);
  ASSERT_EQ(words.size(), 6u);
  const std::string stop = words[2] + words[3];  // spans a token boundary
  const json j = parse(
      request(port, "POST", "/v1/completions", base + R"(,"stop":[")" + stop + R"("]})").body);
  EXPECT_EQ(j["choices"][0]["text"], words[0] + words[1]);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(j["choices"][0]["stop_reason"], stop);
  EXPECT_EQ(j["usage"]["completion_tokens"], 4);
  // The engine sequence was ended as "stop" (as vLLM's frontend counts stop strings), not
  // aborted, and nothing is left running.
  EXPECT_TRUE(eventually([&] { return server->engine().num_unfinished() == 0; }));
  const std::string labels = R"(engine="0",finished_reason=)";
  EXPECT_EQ(metric(port, "vllm:request_success_total{" + labels +
                             R"("abort",model_name="Llama-3.1-8B"})"),
            0);
  EXPECT_EQ(
      metric(port, "vllm:request_success_total{" + labels + R"("stop",model_name="Llama-3.1-8B"})"),
      1);
}

TEST(ApiServer, StopTokenIdsEndTheChoiceWithTheIdAsStopReason) {
  auto server = start_server(test_options());
  const uint16_t port = server->port();
  const std::string base = R"({"prompt":[11,22,33],"max_tokens":6,"ignore_eos":false)";
  const json full = parse(request(port, "POST", "/v1/completions", base + "}").body);
  ASSERT_EQ(full["choices"][0]["finish_reason"], "length");  // the natural end is later (>= 8)
  const std::vector<std::string> words = pieces(full["choices"][0]["text"]);
  ASSERT_EQ(words.size(), 6u);
  const SimTokenizer tok(server->context().setup.deployment.model.vocab);
  std::vector<int32_t> ids;
  for (int64_t i = 0; i < 6; ++i) {
    ids.push_back(sim_output_token(*server, {11, 22, 33}, i));
    ASSERT_EQ(tok.piece(ids.back()), words[static_cast<size_t>(i)]) << "token " << i;
  }
  const int32_t stop = ids[3];
  ASSERT_EQ(std::count(ids.begin(), ids.begin() + 3, stop), 0);
  const json j = parse(request(port, "POST", "/v1/completions",
                               base + R"(,"stop_token_ids":[)" + std::to_string(stop) + "]}")
                           .body);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(j["choices"][0]["stop_reason"], stop);
  EXPECT_EQ(j["choices"][0]["text"], words[0] + words[1] + words[2]);  // the stop token's text cut
  EXPECT_EQ(j["usage"]["completion_tokens"], 4);                       // but it is counted
  // Streaming: the finish chunk carries the id too, and nothing follows the stop.
  auto r = request(port, "POST", "/v1/completions",
                   base + R"(,"stream":true,"stop_token_ids":[)" + std::to_string(stop) + "]}");
  EXPECT_NE(r.body.find(R"("finish_reason":"stop","stop_reason":)" + std::to_string(stop) + "}"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(r.body.find(words[4]), std::string::npos);
  // vLLM's include_stop_str_in_output keeps the stop token's text, and a stop string's.
  const std::string keep = R"(,"include_stop_str_in_output":true)";
  const json kept =
      parse(request(port, "POST", "/v1/completions",
                    base + keep + R"(,"stop_token_ids":[)" + std::to_string(stop) + "]}")
                .body);
  EXPECT_EQ(kept["choices"][0]["stop_reason"], stop);
  EXPECT_EQ(kept["choices"][0]["text"], words[0] + words[1] + words[2] + words[3]);
  const std::string stop_string = words[2].substr(1);  // without its leading space
  for (const bool include : {false, true}) {
    const json s =
        parse(request(port, "POST", "/v1/completions",
                      base + (include ? keep : "") + R"(,"stop":[")" + stop_string + "\"]}")
                  .body);
    EXPECT_EQ(s["choices"][0]["stop_reason"], stop_string);
    EXPECT_EQ(s["choices"][0]["text"],
              words[0] + words[1] + (include ? words[2] : std::string(" ")))
        << include;
  }
}

TEST(ApiServer, RequestLogWithTraceparentAndNoTextByDefault) {
  const std::string path = ::testing::TempDir() + "/llmserve_request_log.jsonl";
  std::remove(path.c_str());
  ServerOptions o = test_options();
  o.request_log = path;
  auto server = start_server(o);
  const std::string tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  request(server->port(), "POST", "/v1/completions", R"({"prompt":"secret words","max_tokens":2})",
          {{"X-Request-Id", "log1"}, {"traceparent", tp}});
  server.reset();
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const json j = parse(line);
  EXPECT_EQ(j["request_id"], "cmpl-log1");
  EXPECT_EQ(j["traceparent"], tp);
  EXPECT_EQ(j["completion_tokens"], 2);
  EXPECT_EQ(j["finish_reasons"][0], "length");
  EXPECT_TRUE(j["metrics"].is_object());
  EXPECT_EQ(line.find("secret"), std::string::npos);
  EXPECT_TRUE(valid_traceparent(tp));
  EXPECT_FALSE(valid_traceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01"));
}

TEST(ApiServer, RequestLogHasALineForAbortedRequests) {
  const std::string path = ::testing::TempDir() + "/llmserve_request_log_abort.jsonl";
  std::remove(path.c_str());
  ServerOptions o = test_options();
  o.step_time_scale = 1.0;  // still running when the client leaves
  o.request_log = path;
  auto server = start_server(o);
  const uint16_t port = server->port();
  {
    Connection c(port);
    c.send_request("POST", "/v1/completions",
                   R"({"prompt":"go","max_tokens":5000,"ignore_eos":true,"stream":true})",
                   {{"X-Request-Id", "gone1"}});
    ASSERT_TRUE(c.read_until("\"finish_reason\":null"));
  }
  {
    Connection c(port);
    c.send_request("POST", "/v1/completions",
                   R"({"prompt":"go","max_tokens":5000,"ignore_eos":true,"n":2})",
                   {{"X-Request-Id", "gone2"}});
    ASSERT_TRUE(eventually([&] { return server->engine().num_unfinished() == 1; }));
  }
  ASSERT_TRUE(eventually([&] { return log_lines(path).size() == 2; }));
  for (const json& j : log_lines(path)) {
    const bool streamed = j["request_id"] == "cmpl-gone1";
    EXPECT_TRUE(streamed || j["request_id"] == "cmpl-gone2") << j;
    EXPECT_EQ(j["finish_reasons"], json(std::vector<std::string>(streamed ? 1 : 2, "abort")));
    if (streamed) {
      EXPECT_GE(j["completion_tokens"], 1);
    }
  }
  server.reset();
  EXPECT_EQ(log_lines(path).size(), 2u);  // written once each
}

TEST(ApiServer, DisableLogStatsServesNoVllmMetrics) {
  ServerOptions o = test_options();
  o.disable_log_stats = true;
  auto server = start_server(o);
  auto r = request(server->port(), "GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.find("vllm:"), std::string::npos);
}

}  // namespace
}  // namespace llm
