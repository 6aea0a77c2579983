#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/api/openai_request.h"
#include "server/api/openai_response.h"
#include "server/text/sim_text_codec.h"

namespace llm {
namespace {

const SimTextCodec kTok(128256);
const ModelInfo kModel{"m", 100, false, {}};

ApiError error_of(Endpoint e, const std::string& body) {
  try {
    parse_completion_request(e, body, kTok, kModel);
  } catch (const ApiException& ex) {
    return ex.error();
  }
  return ApiError{0, "no error", "", ""};
}

TEST(OpenAiRequest, ParsesChatFields) {
  const CompletionRequest r = parse_completion_request(
      Endpoint::kChat,
      R"({"model":"m","messages":[{"role":"user","content":"Hi there"}],"max_completion_tokens":5,
          "n":2,"stop":"x","stop_token_ids":[3],"seed":7,"temperature":0,"top_p":0.5,
          "ignore_eos":true,"user":"u","stream":true,
          "stream_options":{"include_usage":true,"continuous_usage_stats":true}})",
      kTok, kModel);
  EXPECT_EQ(r.prompts.size(), 1u);
  EXPECT_EQ(r.prompts[0], kTok.tokenizer().encode("<|user|>\nHi there\n<|assistant|>\n"));
  EXPECT_EQ(r.max_tokens, 5);
  EXPECT_EQ(r.n, 2);
  EXPECT_EQ(r.stop, std::vector<std::string>{"x"});
  EXPECT_EQ(r.stop_token_ids, std::vector<int32_t>{3});
  EXPECT_EQ(r.seed, 7);
  EXPECT_TRUE(r.ignore_eos && r.stream && r.include_usage && r.continuous_usage_stats);
}

TEST(OpenAiRequest, ParsesEveryPromptShape) {
  auto prompts = [](const std::string& p) {
    return parse_completion_request(Endpoint::kCompletions, R"({"prompt":)" + p + "}", kTok, kModel)
        .prompts;
  };
  EXPECT_EQ(prompts(R"("a b")").size(), 1u);
  EXPECT_EQ(prompts(R"(["a","b c"])").size(), 2u);
  EXPECT_EQ(prompts("[1,2,3]"), (std::vector<std::vector<int32_t>>{{1, 2, 3}}));
  EXPECT_EQ(prompts("[[1],[2,3]]"), (std::vector<std::vector<int32_t>>{{1}, {2, 3}}));
  // The model is optional; it defaults to the served one, and so does an empty name (as vLLM).
  for (const char* body :
       {R"({"prompt":"a"})", R"({"prompt":"a","model":null})", R"({"prompt":"a","model":""})"}) {
    EXPECT_EQ(parse_completion_request(Endpoint::kCompletions, body, kTok, kModel).model, "m")
        << body;
  }
}

TEST(OpenAiRequest, ErrorsNameTheField) {
  EXPECT_EQ(error_of(Endpoint::kChat, "{bad").status, 400);
  EXPECT_EQ(error_of(Endpoint::kChat, "[]").status, 400);
  for (const char* field : {"tools", "tool_choice", "functions", "top_logprobs", "suffix"}) {
    const ApiError e =
        error_of(Endpoint::kChat, std::string(R"({"messages":[{"role":"user","content":"a"}],")") +
                                      field + R"(":"auto"})");
    EXPECT_EQ(e.status, 400) << field;
    EXPECT_EQ(e.param, field);
    EXPECT_NE(e.message.find(field), std::string::npos) << e.message;
  }
  const std::string chat = R"({"messages":[{"role":"user","content":"a"}],)";
  EXPECT_EQ(error_of(Endpoint::kChat, chat + R"("logprobs":"yes"})").param, "logprobs");
  EXPECT_EQ(error_of(Endpoint::kChat, chat + R"("logprobs":true})").status, 0);
  EXPECT_EQ(error_of(Endpoint::kChat, chat + R"("logprobs":false})").status, 0);
  EXPECT_EQ(error_of(Endpoint::kChat, chat + R"("response_format":{"type":"json_object"}})").param,
            "response_format");
  EXPECT_EQ(error_of(Endpoint::kChat, chat + R"("response_format":{"type":"text"}})").status, 0);
  EXPECT_EQ(error_of(Endpoint::kChat, chat + R"("echo":true})").param, "echo");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":"a","echo":true})").status, 0);
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":"a","best_of":3})").param, "best_of");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":"a","n":0})").param, "n");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":"a","max_tokens":"3"})").param,
            "max_tokens");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":"a","stop":[1]})").param, "stop");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":[999999999]})").param, "prompt");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":""})").param, "prompt");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({})").param, "prompt");
  EXPECT_EQ(error_of(Endpoint::kChat, R"({"messages":[]})").param, "messages");
  EXPECT_EQ(error_of(Endpoint::kChat, R"({"messages":[{"role":7,"content":"a"}]})").param,
            "messages[0]");
}

// Found by fuzz/openai_request_fuzz.cpp: fields of the wrong type inside objects that are read
// with a default, and an n too large for any integer next to best_of (a float-to-int cast UBSan
// caught). Each is a 400 naming its field, never an escaped library exception or UB.
TEST(OpenAiRequest, WrongTypesInsideObjectsAndHugeNumbersAre400s) {
  const std::string prompt = R"({"prompt":"a",)";
  EXPECT_EQ(
      error_of(Endpoint::kCompletions, prompt + R"("n":2222222222222222222222222,"best_of":2})")
          .status,
      400);
  EXPECT_EQ(error_of(Endpoint::kCompletions, prompt + R"("n":2,"best_of":2.5})").param, "best_of");
  EXPECT_EQ(error_of(Endpoint::kCompletions, prompt + R"("n":2,"best_of":2})").status, 0);
  EXPECT_EQ(error_of(Endpoint::kCompletions, prompt + R"("best_of":1})").status, 0);
  EXPECT_EQ(error_of(Endpoint::kCompletions, prompt + R"("response_format":{"type":7}})").param,
            "response_format");
  const ApiError e =
      error_of(Endpoint::kChat,
               R"({"messages":[{"role":"user","content":[{"type":["text"],"text":"a"}]}]})");
  EXPECT_EQ(e.param, "messages[0].content");
}

TEST(OpenAiRequest, StreamOptionsWithoutStreamIs400) {
  const ApiError e =
      error_of(Endpoint::kCompletions, R"({"prompt":"a","stream_options":{"include_usage":true}})");
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "stream_options");
}

TEST(OpenAiRequest, UnknownModelIs404) {
  const ApiError e = error_of(Endpoint::kCompletions, R"({"model":"gpt-4","prompt":"a"})");
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(e.message, "The model `gpt-4` does not exist.");
  EXPECT_EQ(nlohmann::json::parse(error_body(e))["error"]["type"], "NotFoundError");
}

TEST(OpenAiRequest, AServedNamesAliasIsAcceptedAsSent) {
  const ModelInfo aliased{"first", 100, false, {"second"}};
  for (const char* name : {"first", "second"}) {
    const CompletionRequest r = parse_completion_request(
        Endpoint::kCompletions, std::string(R"({"prompt":"a","model":")") + name + "\"}", kTok,
        aliased);
    EXPECT_EQ(r.model, name);
  }
  EXPECT_EQ(
      parse_completion_request(Endpoint::kCompletions, R"({"prompt":"a"})", kTok, aliased).model,
      "first");
  try {
    parse_completion_request(Endpoint::kCompletions, R"({"prompt":"a","model":"third"})", kTok,
                             aliased);
    FAIL() << "an unknown name was accepted";
  } catch (const ApiException& e) {
    EXPECT_EQ(e.error().status, 404);
    EXPECT_EQ(e.error().message, "The model `third` does not exist.");
  }
}

// /v1/models as vLLM lists it: a card per served name, in order, each naming --model as its root
// and carrying one model_permission with a fresh id.
TEST(OpenAiResponse, ModelsListACardPerServedName) {
  int ids = 0;
  const auto body = nlohmann::json::parse(
      build_models_body({"first", "second"}, "/models/m.gguf", 4096, 1700000000,
                        [&ids] { return std::string(32, static_cast<char>('a' + ids++)); }));
  EXPECT_EQ(body["object"], "list");
  ASSERT_EQ(body["data"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& card = body["data"][i];
    EXPECT_EQ(card["id"], i == 0 ? "first" : "second");
    EXPECT_EQ(card["object"], "model");
    EXPECT_EQ(card["created"], 1700000000);
    EXPECT_EQ(card["owned_by"], "vllm");
    EXPECT_EQ(card["root"], "/models/m.gguf");
    EXPECT_TRUE(card["parent"].is_null());
    EXPECT_EQ(card["max_model_len"], 4096);
    ASSERT_EQ(card["permission"].size(), 1u);
    const auto& p = card["permission"][0];
    EXPECT_EQ(p["id"], "modelperm-" + std::string(32, static_cast<char>('a' + i)));
    EXPECT_EQ(p["object"], "model_permission");
    EXPECT_EQ(p["created"], 1700000000);
    EXPECT_EQ(p["allow_create_engine"], false);
    EXPECT_EQ(p["allow_sampling"], true);
    EXPECT_EQ(p["allow_logprobs"], true);
    EXPECT_EQ(p["allow_search_indices"], false);
    EXPECT_EQ(p["allow_view"], true);
    EXPECT_EQ(p["allow_fine_tuning"], false);
    EXPECT_EQ(p["organization"], "*");
    EXPECT_TRUE(p["group"].is_null());
    EXPECT_EQ(p["is_blocking"], false);
  }
  // vLLM's field order
  const std::string text = build_models_body({"m"}, "r", 8, 1, [] { return std::string("x"); });
  EXPECT_EQ(text,
            R"({"object":"list","data":[{"id":"m","object":"model","created":1,"owned_by":"vllm",)"
            R"("root":"r","parent":null,"max_model_len":8,"permission":[{"id":"modelperm-x",)"
            R"("object":"model_permission","created":1,"allow_create_engine":false,)"
            R"("allow_sampling":true,"allow_logprobs":true,"allow_search_indices":false,)"
            R"("allow_view":true,"allow_fine_tuning":false,"organization":"*","group":null,)"
            R"("is_blocking":false}]}]})");
}

TEST(OpenAiRequest, ContextLengthMessagesGiveTheNumbers) {
  // 30 token ids; max_model_len 100.
  std::string ids = "[";
  for (int i = 0; i < 30; ++i) ids += std::string(i ? "," : "") + "5";
  ids += "]";
  const ApiError e =
      error_of(Endpoint::kCompletions, R"({"prompt":)" + ids + R"(,"max_tokens":80})");
  EXPECT_EQ(e.message,
            "'max_tokens' is too large: 80. This model's maximum context length is 100 tokens and "
            "your request has 30 input tokens (80 > 100 - 30).");
  EXPECT_EQ(error_of(Endpoint::kCompletions, R"({"prompt":)" + ids + R"(,"max_tokens":70})").status,
            0);
  std::string long_ids = "[5";
  for (int i = 1; i < 100; ++i) long_ids += ",5";
  const ApiError l = error_of(Endpoint::kCompletions, R"({"prompt":)" + long_ids + "]}");
  EXPECT_NE(l.message.find("maximum context length is 100 tokens. However, your request has 100 "
                           "input tokens"),
            std::string::npos)
      << l.message;
}

TEST(OpenAiResponse, ErrorEnvelopeShape) {
  const auto j = nlohmann::json::parse(error_body(ApiError{400, "bad", "n", ""}));
  EXPECT_EQ(j,
            nlohmann::json::parse(
                R"({"error":{"message":"bad","type":"BadRequestError","param":"n","code":400}})"));
  EXPECT_EQ(
      build_error_frame(ApiError{500, "x", "", ""}),
      "data: {\"error\": "
      "{\"message\":\"x\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}}\n\n");
}

TEST(OpenAiResponse, MetricsObjectNullRules) {
  EXPECT_EQ(metrics_json(std::nullopt), "null");
  Timeline t;
  t.queued = 1'000'000'000;
  t.scheduled = 1'500'000'000;
  t.first_token = 2'000'000'000;
  t.last_token = 2'000'000'000;
  const auto j = nlohmann::json::parse(metrics_json(compute_per_request_metrics(t, 1)));
  EXPECT_EQ(j["time_to_first_token_ms"], 500.0);
  EXPECT_TRUE(j["mean_itl_ms"].is_null());
  EXPECT_EQ(j["tokens_per_second"], 2.0);
  EXPECT_EQ(j.size(), 5u);
  // The non-streaming body always carries the key.
  ResponseHead h{Endpoint::kCompletions, "cmpl-1", 5, "m"};
  const auto body =
      nlohmann::json::parse(build_completion_body(h, {}, Usage{3, 4, std::nullopt}, std::nullopt));
  EXPECT_TRUE(body.contains("metrics"));
  EXPECT_TRUE(body["metrics"].is_null());
  EXPECT_EQ(body["usage"]["total_tokens"], 7);
}

TEST(OpenAiResponse, ChunkShapes) {
  ResponseHead h{Endpoint::kChat, "chatcmpl-x", 5, "m"};
  EXPECT_EQ(build_role_chunk(h, 0, nullptr),
            "data: {\"id\":\"chatcmpl-x\",\"object\":\"chat.completion.chunk\",\"created\":5,"
            "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
            "\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
  ChoiceResult c{1, " a", "stop", std::string("zz"), std::nullopt, "", "", "", false};
  Usage u{2, 3, std::nullopt};
  EXPECT_EQ(
      build_delta_chunk(h, c, &u),
      "data: {\"id\":\"chatcmpl-x\",\"object\":\"chat.completion.chunk\",\"created\":5,"
      "\"model\":\"m\",\"choices\":[{\"index\":1,\"delta\":{\"content\":\" a\"},\"logprobs\":"
      "null,\"finish_reason\":\"stop\",\"stop_reason\":\"zz\"}],\"usage\":{\"prompt_tokens\":2,"
      "\"total_tokens\":5,\"completion_tokens\":3}}\n\n");
  EXPECT_EQ(build_usage_chunk(h, u, nullptr).find("\"metrics\""), std::string::npos);
  const std::optional<PerRequestMetrics> none;
  EXPECT_NE(build_usage_chunk(h, u, &none).find("\"choices\":[],"), std::string::npos);
}

}  // namespace
}  // namespace llm
