#include "server/api/structured_output.h"

#include <gtest/gtest.h>

#include "server/api/api_error.h"
#include "server/api/schema_json.h"

namespace llm {
namespace {

using json = nlohmann::json;

const char* kTools = R"("tools":[
  {"type":"function","function":{"name":"get_weather","parameters":{"type":"object",
   "properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7}},
   "required":["city","days"]}}},
  {"type":"function","function":{"name":"no_args"}}])";

json body(const std::string& fields) { return json::parse("{" + fields + "}"); }

TEST(StructuredOutput, ToolChoiceSelectsTheAnswerAndItsFinishReason) {
  struct Case {
    std::string fields;
    bool structured;
    bool tool_call;
    const char* tool;  // "" = any of the tools
    const char* finish_reason;
  };
  const std::string tools = kTools;
  const Case cases[] = {
      {tools, true, true, "", "tool_calls"},  // tools without tool_choice: "auto"
      {tools + R"(,"tool_choice":"auto")", true, true, "", "tool_calls"},
      {tools + R"(,"tool_choice":"required")", true, true, "", "tool_calls"},
      {tools + R"(,"tool_choice":{"type":"function","function":{"name":"get_weather"}})", true,
       true, "get_weather", "stop"},
      {tools + R"(,"tool_choice":"none")", false, false, "", ""},
      {tools + R"(,"tool_choice":"none","response_format":{"type":"json_object"})", true, false, "",
       "stop"},
      {R"("response_format":{"type":"text"})", false, false, "", ""},
      {R"("response_format":{"type":"json_object"})", true, false, "", "stop"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"integer"}}})",
       true, false, "", "stop"},
      {R"("tools":[],"tool_choice":"none")", false, false, "", ""},
  };
  for (const Case& c : cases) {
    const std::optional<StructuredOutputSpec> spec = parse_structured_output(body(c.fields));
    ASSERT_EQ(spec.has_value(), c.structured) << c.fields;
    if (!spec) continue;
    const StructuredAnswer a = make_structured_answer(*spec, 1, 0);
    EXPECT_EQ(a.tool_call, c.tool_call) << c.fields;
    EXPECT_EQ(a.finish_reason, c.finish_reason) << c.fields;
    if (std::string(c.tool).size()) {
      EXPECT_EQ(a.tool_name, c.tool) << c.fields;
    }
    EXPECT_NO_THROW(json::parse(a.text)) << c.fields << ": " << a.text;
    if (a.tool_call) {
      EXPECT_EQ(a.tool_call_id.rfind("chatcmpl-tool-", 0), 0u);
      EXPECT_EQ(a.tool_call_id.size(), 14u + 32u);
      EXPECT_TRUE(json::parse(a.text).is_object()) << a.text;
    }
  }
}

TEST(StructuredOutput, ToolArgumentsValidateAgainstTheToolSchemaAndFollowTheSeed) {
  const json b = body(std::string(kTools) +
                      R"(,"tool_choice":{"type":"function","function":{"name":"get_weather"}})");
  const StructuredOutputSpec spec = *parse_structured_output(b);
  const json schema = b["tools"][0]["function"]["parameters"];
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const StructuredAnswer a = make_structured_answer(spec, seed, 0);
    EXPECT_FALSE(validate_against(schema, json::parse(a.text))) << a.text;
    EXPECT_EQ(a.text, make_structured_answer(spec, seed, 0).text);
    EXPECT_EQ(a.tool_call_id, make_structured_answer(spec, seed, 0).tool_call_id);
  }
  EXPECT_NE(make_structured_answer(spec, 3, 0).tool_call_id,
            make_structured_answer(spec, 3, 1).tool_call_id);
}

TEST(StructuredOutput, BadToolsAndFormatsAre400sNamingTheField) {
  struct Case {
    std::string fields;
    const char* param;
    const char* message;
  };
  const Case cases[] = {
      {R"("tools":{})", "tools", "must be a list"},
      {R"("tools":[{"type":"function"}])", "tools[0]", "must be {\"type\""},
      {R"("tools":[{"type":"function","function":{"name":""}}])", "tools[0].function.name",
       "non-empty string"},
      {R"("tools":[{"type":"function","function":{"name":"f","parameters":{"type":"string","pattern":"x"}}}])",
       "tools[0].function.parameters", "unsupported keyword 'pattern'"},
      {std::string(kTools) + R"(,"tool_choice":{"type":"function","function":{"name":"nope"}})",
       "tool_choice", "Tool 'nope' has not been passed in `tools`."},
      {std::string(kTools) + R"(,"tool_choice":"sometimes")", "tool_choice", "must be"},
      {R"("tool_choice":"required")", "tool_choice", "`tools` must be set"},
      {R"("response_format":{"type":"xml"})", "response_format.type", "must be"},
      {R"("response_format":{"type":"json_schema"})", "response_format.json_schema", "is required"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"integer","minimum":5,"maximum":1}}})",
       "response_format.json_schema.schema", "the numeric range is empty"},
  };
  for (const Case& c : cases) {
    try {
      parse_structured_output(body(c.fields));
      ADD_FAILURE() << "accepted: " << c.fields;
    } catch (const ApiException& e) {
      EXPECT_EQ(e.error().status, 400);
      EXPECT_EQ(e.error().param, c.param) << c.fields;
      EXPECT_NE(e.error().message.find(c.message), std::string::npos)
          << c.fields << ": " << e.error().message;
    }
  }
}

}  // namespace
}  // namespace llm
