// Lenient parsing as vLLM does it (unknown fields ignored and named, custom roles, priority and
// cache_salt) and vLLM's request limits, table by table; refusals of what we do not implement.
#include "server/api/openai_request.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/text/sim_text_codec.h"

namespace llm {
namespace {

const SimTextCodec kCodec(128256);
const ModelInfo kFcfs{"m", 100, false, {}};
const ModelInfo kPriority{"m", 100, true, {}};
const std::string kChat = R"({"messages":[{"role":"user","content":"a"}])";

ApiError request_error_of(Endpoint e, const std::string& body, const ModelInfo& model = kFcfs) {
  try {
    parse_completion_request(e, body, kCodec, model);
  } catch (const ApiException& ex) {
    return ex.error();
  }
  return ApiError{0, "no error", "", ""};
}

TEST(LenientRequest, UnknownTopLevelAndMessageFieldsAreIgnoredAndNamed) {
  const CompletionRequest r = parse_completion_request(
      Endpoint::kChat,
      R"({"messages":[{"role":"user","content":"a","name":"x","cache_control":{}},
                      {"role":"assistant","content":"b","refusal":null}],
          "verbosity":"low","prompt_cache_key":"k","temperature":0})",
      kCodec, kFcfs);
  EXPECT_EQ(r.ignored_fields,
            (std::vector<std::string>{"prompt_cache_key", "verbosity", "messages[0].cache_control",
                                      "messages[1].refusal"}));
  // Known fields, and fields refused unless neutral but sent neutral, are not listed.
  const CompletionRequest known = parse_completion_request(
      Endpoint::kCompletions,
      R"({"prompt":"a","max_tokens":2,"skip_special_tokens":true,"bad_words":[],"priority":0})",
      kCodec, kFcfs);
  EXPECT_TRUE(known.ignored_fields.empty());
}

TEST(LenientRequest, UnknownStreamOptionsAreIgnoredAndNamed) {
  const CompletionRequest r = parse_completion_request(Endpoint::kCompletions,
                                                       R"({"prompt":"a","stream":true,
          "stream_options":{"include_usage":true,"include_obfuscation":false}})",
                                                       kCodec, kFcfs);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(r.ignored_fields, std::vector<std::string>{"stream_options.include_obfuscation"});
}

TEST(LenientRequest, IgnoringAFieldDoesNotChangeThePrompt) {
  const auto plain = parse_completion_request(Endpoint::kChat, kChat + "}", kCodec, kFcfs);
  const auto extra =
      parse_completion_request(Endpoint::kChat, kChat + R"(,"x_new_field":[1]})", kCodec, kFcfs);
  EXPECT_EQ(plain.prompts, extra.prompts);
  EXPECT_EQ(extra.ignored_fields, std::vector<std::string>{"x_new_field"});
}

TEST(LenientRequest, CustomRolesGoToTheChatTemplate) {
  const auto r = parse_completion_request(
      Endpoint::kChat, R"({"messages":[{"role":"critic","content":"Be harsh."}]})", kCodec, kFcfs);
  EXPECT_EQ(r.prompt_texts[0], "<|critic|>\nBe harsh.\n<|assistant|>\n");
  // A template that cannot express the role refuses it, naming messages.
  const SimTextCodec llama2(128256, chat_template_for(ChatTemplateKind::kLlama2));
  try {
    parse_completion_request(Endpoint::kChat, R"({"messages":[{"role":"critic","content":"a"}]})",
                             llama2, kFcfs);
    FAIL() << "llama2 accepted a custom role";
  } catch (const ApiException& e) {
    EXPECT_EQ(e.error().param, "messages");
    EXPECT_NE(e.error().message.find("critic"), std::string::npos) << e.error().message;
  }
}

TEST(LenientRequest, IgnoredFieldsLogLineNamesOnlyAndStaysOneLine) {
  EXPECT_EQ(ignored_fields_log_line("r1", {}), "");
  EXPECT_EQ(ignored_fields_log_line("r1", {"foo", "messages[0].bar"}),
            "llmserve: request \"r1\": ignored fields the server does not know: \"foo\", "
            "\"messages[0].bar\"");
  std::vector<std::string> many(20, "k");
  many[0] = "line\nbreak" + std::string(100, 'x');
  const std::string line = ignored_fields_log_line("r2", many);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("and 4 more"), std::string::npos) << line;
  EXPECT_EQ(line.find(std::string(70, 'x')), std::string::npos) << "a name is cut to 64 bytes";
}

TEST(LenientRequest, PriorityIsReadUnderThePriorityPolicyAndRefusedOtherwiseAsVllmDoes) {
  struct Case {
    std::string priority;
    const ModelInfo* model;
    int status;
    int32_t value;
  };
  const Case cases[] = {
      {"0", &kFcfs, 0, 0},         {"null", &kFcfs, 0, 0},
      {"5", &kFcfs, 400, 0},       {"-3", &kPriority, 0, -3},
      {"7", &kPriority, 0, 7},     {"\"1\"", &kPriority, 400, 0},
      {"1.5", &kPriority, 400, 0}, {"3000000000", &kPriority, 400, 0},
  };
  for (const Case& c : cases) {
    const std::string body = kChat + R"(,"priority":)" + c.priority + "}";
    const ApiError e = request_error_of(Endpoint::kChat, body, *c.model);
    EXPECT_EQ(e.status, c.status) << c.priority << ": " << e.message;
    if (c.status == 0) {
      EXPECT_EQ(parse_completion_request(Endpoint::kChat, body, kCodec, *c.model).priority,
                c.value);
    } else {
      EXPECT_EQ(e.param, "priority");
    }
  }
  EXPECT_EQ(request_error_of(Endpoint::kChat, kChat + R"(,"priority":5})").message,
            "Got priority 5 but Priority scheduling is not enabled.");
}

TEST(LenientRequest, CacheSaltMustBeANonEmptyString) {
  const auto r = parse_completion_request(
      Endpoint::kCompletions, R"({"prompt":"a","cache_salt":"tenant-7"})", kCodec, kFcfs);
  EXPECT_EQ(r.cache_salt, "tenant-7");
  for (const char* salt : {R"("")", "3", "[]", "{}"}) {
    const ApiError e = request_error_of(Endpoint::kChat, kChat + R"(,"cache_salt":)" + salt + "}");
    EXPECT_EQ(e.param, "cache_salt") << salt;
    EXPECT_EQ(e.message, "Parameter 'cache_salt' must be a non-empty string if provided.");
  }
  EXPECT_EQ(request_error_of(Endpoint::kChat, kChat + R"(,"cache_salt":null})").status, 0);
}

TEST(RequestLimits, VllmsLimitsAndOurCapOnN) {
  struct Case {
    Endpoint endpoint;
    std::string body;
    std::string param;  // "" = accepted
    std::string message_part;
  };
  const std::string stops5 = R"(["a","b","c","d","e"])";
  const Case cases[] = {
      {Endpoint::kCompletions, R"({"prompt":"a","n":128})", "", ""},
      {Endpoint::kCompletions, R"({"prompt":"a","n":129})", "n", "at most 128 on this server"},
      {Endpoint::kCompletions, R"({"prompt":"a","n":16385})", "n", "at most 16384"},
      {Endpoint::kChat, kChat + R"(,"stop":["a","b","c","d"]})", "", ""},
      {Endpoint::kChat, kChat + R"(,"stop":)" + stops5 + "}", "stop", "at most 4 strings, got 5"},
      {Endpoint::kChat, kChat + R"(,"seed":9223372036854775807})", "", ""},
      {Endpoint::kChat, kChat + R"(,"seed":-9223372036854775808})", "", ""},
      {Endpoint::kChat, kChat + R"(,"seed":9223372036854775808})", "seed",
       "at most 9223372036854775807"},
      {Endpoint::kChat, kChat + R"(,"seed":18446744073709551615})", "seed", "got 1844674"},
  };
  for (const Case& c : cases) {
    const ApiError e = request_error_of(c.endpoint, c.body);
    EXPECT_EQ(e.param, c.param) << c.body << ": " << e.message;
    EXPECT_NE(e.message.find(c.message_part), std::string::npos) << e.message;
    EXPECT_EQ(e.status, c.param.empty() ? 0 : 400) << c.body;
  }
}

TEST(RequestLimits, AtMost1024PromptsInOneCompletionsRequest) {
  auto prompts = [](size_t n, const std::string& one) {
    std::string list = "[";
    for (size_t i = 0; i < n; ++i) list += (i ? "," : "") + one;
    return R"({"max_tokens":1,"prompt":)" + list + "]}";
  };
  EXPECT_EQ(request_error_of(Endpoint::kCompletions, prompts(1024, R"("a")")).status, 0);
  const ApiError strings = request_error_of(Endpoint::kCompletions, prompts(1025, R"("a")"));
  EXPECT_EQ(strings.param, "prompt");
  EXPECT_EQ(strings.message, "prompt list length 1025 exceeds the maximum allowed count of 1024.");
  EXPECT_EQ(request_error_of(Endpoint::kCompletions, prompts(1025, "[1]")).param, "prompt");
  // One prompt of 1025 token ids is one prompt (it fails the context check, not this one).
  const ApiError ids = request_error_of(Endpoint::kCompletions, prompts(1025, "1"));
  EXPECT_NE(ids.message.find("maximum context length"), std::string::npos) << ids.message;
}

TEST(RequestLimits, FeaturesThatWouldChangeTheResultAreRefusedUnlessNeutral) {
  struct Case {
    std::string field;
    std::string refused;  // a value that would change the result
    std::string neutral;  // accepted
  };
  const Case cases[] = {
      {"chat_template", R"("{{ x }}")", "null"},
      {"chat_template_kwargs", R"({"enable_thinking":true})", "{}"},
      {"continue_final_message", "true", "false"},
      {"skip_special_tokens", "false", "true"},
      {"use_beam_search", "true", "false"},
      {"length_penalty", "2.0", "1.0"},
      {"bad_words", R"(["x"])", "[]"},
      {"truncate_prompt_tokens", "5", "null"},
      {"tools", R"([{"type":"function"}])", "null"},
      {"response_format", R"({"type":"json_schema"})", R"({"type":"text"})"},
      {"guided_json", "{}", "null"},
      {"structured_outputs", R"({"regex":"a"})", "null"},
      {"logprob_token_ids", "[1]", "null"},
  };
  for (const Case& c : cases) {
    const ApiError e =
        request_error_of(Endpoint::kChat, kChat + ",\"" + c.field + "\":" + c.refused + "}");
    EXPECT_EQ(e.status, 400) << c.field;
    EXPECT_EQ(e.param, c.field);
    EXPECT_EQ(
        request_error_of(Endpoint::kChat, kChat + ",\"" + c.field + "\":" + c.neutral + "}").status,
        0)
        << c.field;
  }
  const ApiError calls = request_error_of(
      Endpoint::kChat,
      R"({"messages":[{"role":"assistant","content":"","tool_calls":[{"id":"c"}]}]})");
  EXPECT_EQ(calls.param, "messages[0].tool_calls");
}

// Tools and response_format: a backend with structured outputs (the sim) takes them on chat and
// reads them into `structured`; the others (cpu, cuda) refuse them naming the field, and
// completions refuses them everywhere.
TEST(RequestRefusals, ToolsAndResponseFormatNeedABackendWithStructuredOutputs) {
  ModelInfo sim = kFcfs;
  sim.structured_outputs = true;
  const std::string tools = R"("tools":[{"type":"function","function":{"name":"f"}}])";
  const std::string json_schema =
      R"("response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}})";
  struct Case {
    Endpoint endpoint;
    std::string body;
    const ModelInfo* model;
    const char* refused;  // the param of the 400, "" = accepted with a structured answer
  };
  const std::string prompt = R"({"prompt":"a",)";
  const Case cases[] = {
      {Endpoint::kChat, kChat + "," + tools + "}", &sim, ""},
      {Endpoint::kChat, kChat + "," + json_schema + "}", &sim, ""},
      {Endpoint::kChat, kChat + R"(,"response_format":{"type":"json_object"}})", &sim, ""},
      {Endpoint::kChat, kChat + "," + tools + "}", &kFcfs, "tools"},
      {Endpoint::kChat, kChat + R"(,"tool_choice":"required"})", &kFcfs, "tool_choice"},
      {Endpoint::kChat, kChat + "," + json_schema + "}", &kFcfs, "response_format"},
      {Endpoint::kCompletions, prompt + tools + "}", &sim, "tools"},
      {Endpoint::kCompletions, prompt + json_schema + "}", &sim, "response_format"},
  };
  for (const Case& c : cases) {
    const ApiError e = request_error_of(c.endpoint, c.body, *c.model);
    EXPECT_EQ(e.param, c.refused) << c.body;
    if (*c.refused) {
      EXPECT_EQ(e.status, 400) << c.body;
      continue;
    }
    EXPECT_TRUE(parse_completion_request(c.endpoint, c.body, kCodec, *c.model).structured)
        << c.body;
  }
  // The plain text answer stays plain on the sim too.
  EXPECT_FALSE(parse_completion_request(Endpoint::kChat, kChat + "}", kCodec, sim).structured);
}

// vLLM's penalties and min_p: its ranges and messages; a backend without them (cuda, for now)
// takes only their neutral values.
TEST(RequestLimits, PenaltiesAndMinPAreReadInVllmsRanges) {
  const CompletionRequest r = parse_completion_request(
      Endpoint::kChat,
      kChat + R"(,"presence_penalty":-2,"frequency_penalty":1.5,"repetition_penalty":1.3,)"
              R"("min_p":0.05})",
      kCodec, kFcfs);
  EXPECT_EQ(r.controls.presence_penalty, -2);
  EXPECT_EQ(r.controls.frequency_penalty, 1.5);
  EXPECT_EQ(r.controls.repetition_penalty, 1.3);
  EXPECT_EQ(r.controls.min_p, 0.05);
  EXPECT_TRUE(r.ignored_fields.empty());
  const CompletionRequest plain =
      parse_completion_request(Endpoint::kChat, kChat + "}", kCodec, kFcfs);
  EXPECT_EQ(plain.controls.presence_penalty, 0);
  EXPECT_EQ(plain.controls.frequency_penalty, 0);
  EXPECT_EQ(plain.controls.repetition_penalty, 1);
  EXPECT_EQ(plain.controls.min_p, 0);
  struct Case {
    std::string field;
    std::string message;
  };
  const Case cases[] = {
      {R"("presence_penalty":2.5)", "presence_penalty must be in [-2, 2], got 2.5."},
      {R"("presence_penalty":-3)", "presence_penalty must be in [-2, 2], got -3.0."},
      {R"("frequency_penalty":2.01)", "frequency_penalty must be in [-2, 2], got 2.01."},
      {R"("repetition_penalty":0)", "repetition_penalty must be greater than zero, got 0.0."},
      {R"("repetition_penalty":-1.5)", "repetition_penalty must be greater than zero, got -1.5."},
      {R"("min_p":1.5)", "min_p must be in [0, 1], got 1.5."},
      {R"("min_p":-0.1)", "min_p must be in [0, 1], got -0.1."},
      {R"("min_p":"0.1")", "'min_p' must be a number"},
  };
  for (const Case& c : cases) {
    const ApiError e = request_error_of(Endpoint::kChat, kChat + "," + c.field + "}");
    EXPECT_EQ(e.status, 400) << c.field;
    EXPECT_EQ(e.param, c.field.substr(1, c.field.find('"', 1) - 1)) << c.field;
    EXPECT_EQ(e.message, c.message) << c.field;
  }
  ModelInfo cuda = kFcfs;
  cuda.full_sampler = false;
  EXPECT_EQ(
      request_error_of(Endpoint::kChat,
                       kChat + R"(,"presence_penalty":0,"repetition_penalty":1,"min_p":0})", cuda)
          .status,
      0);
  for (const char* field : {R"("presence_penalty":0.5)", R"("frequency_penalty":-1)",
                            R"("repetition_penalty":1.1)", R"("min_p":0.2)"}) {
    EXPECT_EQ(request_error_of(Endpoint::kChat, kChat + "," + field + "}", cuda).status, 400)
        << field;
  }
}

// OpenAI's logit_bias as vLLM reads it: integer keys (as strings), numeric values clamped to
// [-100, 100], every out-of-vocabulary id named (vocabulary 128256 here).
TEST(RequestLimits, LogitBiasIsReadAsVllmReadsIt) {
  const CompletionRequest r = parse_completion_request(
      Endpoint::kChat, kChat + R"(,"logit_bias":{"5":1.5," 7 ":-200,"+3":300,"128255":0}})", kCodec,
      kFcfs);
  EXPECT_EQ(r.controls.logit_bias, (std::vector<std::pair<int32_t, float>>{
                                       {3, 100.0f}, {5, 1.5f}, {7, -100.0f}, {128255, 0.0f}}));
  EXPECT_TRUE(r.ignored_fields.empty());
  EXPECT_TRUE(
      parse_completion_request(Endpoint::kChat, kChat + R"(,"logit_bias":{}})", kCodec, kFcfs)
          .controls.logit_bias.empty());
  struct Case {
    std::string value;
    std::string message;
  };
  const Case cases[] = {
      {R"([[1,1]])", "'logit_bias' must be an object of token ids to numbers"},
      {R"({"1.0":1})", R"('logit_bias' keys must be token ids, got "1.0")"},
      {R"({"x":1})", R"('logit_bias' keys must be token ids, got "x")"},
      {R"({"":1})", R"('logit_bias' keys must be token ids, got "")"},
      {R"({"1":"1"})", R"('logit_bias' values must be numbers, got "1" for "1")"},
      {R"({"-1":1,"128256":2,"3":1})",
       "token_id(s) [-1, 128256] in logit_bias contain out-of-vocab token ids. Vocabulary size: "
       "128256"},
  };
  for (const Case& c : cases) {
    const ApiError e =
        request_error_of(Endpoint::kChat, kChat + R"(,"logit_bias":)" + c.value + "}");
    EXPECT_EQ(e.status, 400) << c.value;
    EXPECT_EQ(e.param, "logit_bias") << c.value;
    EXPECT_EQ(e.message, c.message) << c.value;
  }
  ModelInfo cuda = kFcfs;
  cuda.full_sampler = false;
  EXPECT_EQ(request_error_of(Endpoint::kChat, kChat + R"(,"logit_bias":{}})", cuda).status, 0);
  EXPECT_EQ(request_error_of(Endpoint::kChat, kChat + R"(,"logit_bias":{"1":2}})", cuda).status,
            400);
}

TEST(RequestLimits, AllowedTokenIdsAreReadWithVllmsMessages) {
  EXPECT_EQ(parse_completion_request(
                Endpoint::kChat, kChat + R"(,"allowed_token_ids":[9,3,9,128255]})", kCodec, kFcfs)
                .controls.allowed_token_ids,
            (std::vector<int32_t>{3, 9, 128255}));
  struct Case {
    std::string value;
    std::string message;
  };
  const Case cases[] = {
      {"[]", "allowed_token_ids is not None and empty!"},
      {"[1,128256]", "allowed_token_ids contains out-of-vocab token id!"},
      {"[-1]", "allowed_token_ids contains out-of-vocab token id!"},
      {"[18446744073709551615]", "allowed_token_ids contains out-of-vocab token id!"},
      {"[1.5]", "'allowed_token_ids' must be a list of token ids"},
      {"5", "'allowed_token_ids' must be a list of token ids"},
  };
  for (const Case& c : cases) {
    const ApiError e =
        request_error_of(Endpoint::kChat, kChat + R"(,"allowed_token_ids":)" + c.value + "}");
    EXPECT_EQ(e.status, 400) << c.value;
    EXPECT_EQ(e.param, "allowed_token_ids") << c.value;
    EXPECT_EQ(e.message, c.message) << c.value;
  }
  ModelInfo cuda = kFcfs;
  cuda.full_sampler = false;
  EXPECT_EQ(request_error_of(Endpoint::kChat, kChat + R"(,"allowed_token_ids":[1]})", cuda).status,
            400);
}

TEST(RequestLimits, IncludeStopStrInOutputIsAKnownBoolean) {
  const CompletionRequest r = parse_completion_request(
      Endpoint::kChat, kChat + R"(,"include_stop_str_in_output":true})", kCodec, kFcfs);
  EXPECT_TRUE(r.include_stop_str_in_output);
  EXPECT_TRUE(r.ignored_fields.empty());
  EXPECT_FALSE(parse_completion_request(Endpoint::kChat, kChat + "}", kCodec, kFcfs)
                   .include_stop_str_in_output);
  const ApiError e =
      request_error_of(Endpoint::kChat, kChat + R"(,"include_stop_str_in_output":"yes"})");
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "include_stop_str_in_output");
}

// vLLM's min_tokens: an integer from 0 up to the request's max_tokens (or, without one, the room
// its prompt leaves in the context), with vLLM's messages; a backend that cannot hold
// stop tokens back refuses any other value than 0.
TEST(RequestLimits, MinTokensIsReadUpToMaxTokensWithVllmsMessages) {
  struct Case {
    std::string fields;
    int64_t min_tokens;   // when accepted
    std::string message;  // when refused
  };
  const Case cases[] = {
      {"", 0, ""},
      {R"("min_tokens":null)", 0, ""},
      {R"("min_tokens":0)", 0, ""},
      {R"("min_tokens":5,"max_tokens":5)", 5, ""},
      {R"("min_tokens":50)", 50, ""},
      {R"("min_tokens":6,"max_tokens":5)", 0,
       "min_tokens must be less than or equal to max_tokens=5, got 6."},
      {R"("min_tokens":6,"max_completion_tokens":5)", 0,
       "min_tokens must be less than or equal to max_tokens=5, got 6."},
      {R"("min_tokens":87)", 0, "min_tokens must be less than or equal to max_tokens=86, got 87."},
      {R"("min_tokens":18446744073709551615)", 0,
       "min_tokens must be less than or equal to max_tokens=86, got 9223372036854775807."},
      {R"("min_tokens":-1)", 0, "min_tokens must be greater than or equal to 0, got -1."},
      {R"("min_tokens":1.5)", 0, "'min_tokens' must be an integer"},
      {R"("min_tokens":"2")", 0, "'min_tokens' must be an integer"},
  };
  for (const Case& c : cases) {
    // the templated chat prompt is 14 tokens: 86 left of 100
    const std::string body = kChat + (c.fields.empty() ? "" : "," + c.fields) + "}";
    if (c.message.empty()) {
      EXPECT_EQ(parse_completion_request(Endpoint::kChat, body, kCodec, kFcfs).controls.min_tokens,
                c.min_tokens)
          << body;
    } else {
      const ApiError e = request_error_of(Endpoint::kChat, body);
      EXPECT_EQ(e.status, 400) << body;
      EXPECT_EQ(e.param, "min_tokens") << body;
      EXPECT_EQ(e.message, c.message) << body;
    }
  }
  ModelInfo cuda = kFcfs;
  cuda.full_sampler = false;
  EXPECT_EQ(request_error_of(Endpoint::kChat, kChat + R"(,"min_tokens":0})", cuda).status, 0);
  const ApiError refused = request_error_of(Endpoint::kChat, kChat + R"(,"min_tokens":1})", cuda);
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.param, "min_tokens");
}

}  // namespace
}  // namespace llm
