#include "server/api/responses_request.h"

#include <gtest/gtest.h>

#include "server/text/sim_text_codec.h"

namespace llm {
namespace {

const SimTextCodec kResponsesCodec(128256);
const ModelInfo kResponsesModel{"m", 100, false, {}};

ApiError error_of(const std::string& body) {
  try {
    parse_responses_request(body, kResponsesCodec, kResponsesModel);
  } catch (const ApiException& ex) {
    return ex.error();
  }
  return ApiError{0, "no error", "", ""};
}

TEST(ResponsesRequest, AStringInputIsOneUserMessageAndInstructionsASystemMessage) {
  const CompletionRequest r = parse_responses_request(
      R"({"model":"m","input":"Hi","instructions":"Be brief.","max_output_tokens":7,
          "temperature":0,"top_p":0.5,"stream":true,"user":"u","metadata":{"k":"v"}})",
      kResponsesCodec, kResponsesModel);
  EXPECT_EQ(r.endpoint, Endpoint::kResponses);
  EXPECT_EQ(r.prompt_texts,
            std::vector<std::string>{"<|system|>\nBe brief.\n<|user|>\nHi\n<|assistant|>\n"});
  EXPECT_EQ(r.prompts[0], kResponsesCodec.encode(r.prompt_texts[0], false));
  EXPECT_EQ(r.max_tokens, 7);
  EXPECT_EQ(r.temperature, 0);
  EXPECT_EQ(r.top_p, 0.5);
  EXPECT_TRUE(r.stream);
  EXPECT_EQ(r.n, 1);
  EXPECT_EQ(r.user, "u");
  EXPECT_EQ(r.responses.instructions, "Be brief.");
  EXPECT_EQ(r.responses.metadata_json, R"({"k":"v"})");
  EXPECT_TRUE(r.ignored_fields.empty());
}

TEST(ResponsesRequest, MessageItemsGiveTheSamePromptAsChat) {
  const CompletionRequest items = parse_responses_request(
      R"({"input":[{"role":"user","content":"one"},
                   {"type":"message","role":"assistant",
                    "content":[{"type":"output_text","text":"two"}]},
                   {"role":"user","content":[{"type":"input_text","text":"a"},
                                             {"type":"input_text","text":"b"}],"id":"x"}]})",
      kResponsesCodec, kResponsesModel);
  const CompletionRequest chat = parse_completion_request(
      Endpoint::kChat,
      R"({"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"two"},
                      {"role":"user","content":"a\nb"}]})",
      kResponsesCodec, kResponsesModel);
  EXPECT_EQ(items.prompts, chat.prompts);
  EXPECT_EQ(items.ignored_fields, std::vector<std::string>{"input[2].id"});
}

TEST(ResponsesRequest, UnknownFieldsAreIgnoredAndNamed) {
  const CompletionRequest r = parse_responses_request(
      R"({"input":"a","future_option":1,"store":false})", kResponsesCodec, kResponsesModel);
  EXPECT_EQ(r.ignored_fields, std::vector<std::string>{"future_option"});
}

TEST(ResponsesRequest, UnsupportedPartsAre400sNamingTheField) {
  struct Case {
    std::string extra;  // appended to {"input":"a",
    std::string param;  // "" = accepted
  };
  const Case cases[] = {
      {R"("tools":[{"type":"function","name":"f"}])", "tools"},
      {R"("tools":[])", ""},
      {R"("tool_choice":"required")", "tool_choice"},
      {R"("tool_choice":"auto")", ""},
      {R"("background":true)", "background"},
      {R"("store":true)", "store"},
      {R"("previous_response_id":"resp_1")", "previous_response_id"},
      {R"("conversation":"conv_1")", "conversation"},
      {R"("prompt":{"id":"pmpt_1"})", "prompt"},
      {R"("include":["message.output_text.logprobs"])", "include"},
      {R"("include":[])", ""},
      {R"("text":{"format":{"type":"json_schema"}})", "text.format"},
      {R"("text":{"format":{"type":"text"},"verbosity":"low"})", ""},
      {R"("reasoning":{"effort":"high"})", "reasoning"},
      {R"("reasoning":{"effort":null})", ""},
      {R"("top_logprobs":3)", "top_logprobs"},
      {R"("truncation":"sometimes")", "truncation"},
      {R"("truncation":"auto")", ""},
      {R"("max_output_tokens":0)", "max_output_tokens"},
      {R"("max_output_tokens":99)", "max_output_tokens"},
      {R"("temperature":-1)", "temperature"},
      {R"("priority":2)", "priority"},
      {R"("cache_salt":"")", "cache_salt"},
      {R"("metadata":[1])", "metadata"},
      {R"("instructions":5)", "instructions"},
  };
  for (const Case& c : cases) {
    const ApiError e = error_of(R"({"input":"a",)" + c.extra + "}");
    EXPECT_EQ(e.param, c.param) << c.extra << ": " << e.message;
    EXPECT_EQ(e.status, c.param.empty() ? 0 : 400) << c.extra;
    if (!c.param.empty()) {
      EXPECT_NE(e.message.find(c.param), std::string::npos) << e.message;
    }
  }
}

TEST(ResponsesRequest, MalformedInputIsA400NamingThePlace) {
  struct Case {
    std::string input;
    std::string param;
  };
  const Case cases[] = {
      {"", "input"},
      {R"("input":null)", "input"},
      {R"("input":[])", "input"},
      {R"("input":7)", "input"},
      {R"("input":[3])", "input[0]"},
      {R"("input":[{"content":"a"}])", "input[0].role"},
      {R"("input":[{"role":"user"}])", "input[0].content"},
      {R"("input":[{"type":"function_call_output","call_id":"c","output":"x"}])", "input[0].type"},
      {R"("input":[{"role":"user","content":[{"type":"input_image","image_url":"u"}]}])",
       "input[0].content[0]"},
      {R"("input":[{"role":"user","content":[{"type":"input_text"}]}])",
       "input[0].content[0].text"},
      {R"("input":[{"role":"user","content":{"text":"a"}}])", "input[0].content"},
  };
  for (const Case& c : cases) {
    const ApiError e = error_of("{" + c.input + "}");
    EXPECT_EQ(e.status, 400) << c.input;
    EXPECT_EQ(e.param, c.param) << c.input << ": " << e.message;
  }
  EXPECT_EQ(error_of(R"({"model":"other","input":"a"})").status, 404);
}

}  // namespace
}  // namespace llm

namespace llm {
namespace {

// text.format json_object / json_schema: read into `structured` on a backend with structured
// outputs (the sim), refused naming the field elsewhere; tools stay refused everywhere.
TEST(ResponsesRequest, JsonTextFormatsNeedABackendWithStructuredOutputs) {
  ModelInfo sim = kResponsesModel;
  sim.structured_outputs = true;
  const std::string schema =
      R"({"input":"x","text":{"format":{"type":"json_schema","name":"p","schema":{"type":"integer"}}}})";
  const CompletionRequest r = parse_responses_request(schema, kResponsesCodec, sim);
  ASSERT_TRUE(r.structured);
  EXPECT_EQ(r.structured->kind, StructuredOutputSpec::Kind::kJsonSchema);
  EXPECT_EQ(r.structured->schema, nlohmann::json::parse(R"({"type":"integer"})"));
  EXPECT_EQ(parse_responses_request(R"({"input":"x","text":{"format":{"type":"json_object"}}})",
                                    kResponsesCodec, sim)
                .structured->kind,
            StructuredOutputSpec::Kind::kJsonObject);
  EXPECT_FALSE(parse_responses_request(R"({"input":"x","text":{"format":{"type":"text"}}})",
                                       kResponsesCodec, sim)
                   .structured);
  EXPECT_EQ(error_of(schema).param, "text.format");
  struct Case {
    const char* body;
    const char* param;
  };
  const Case refused[] = {
      {R"({"input":"x","text":{"format":{"type":"json_schema","name":"p"}}})",
       "text.format.schema"},
      {R"({"input":"x","text":{"format":{"type":"yaml"}}})", "text.format.type"},
      {R"({"input":"x","tools":[{"type":"function","name":"f"}]})", "tools"},
  };
  for (const Case& c : refused) {
    try {
      parse_responses_request(c.body, kResponsesCodec, sim);
      ADD_FAILURE() << "accepted: " << c.body;
    } catch (const ApiException& e) {
      EXPECT_EQ(e.error().param, c.param) << c.body;
    }
  }
}

}  // namespace
}  // namespace llm
