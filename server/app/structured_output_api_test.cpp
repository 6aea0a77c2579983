// Tools and response_format on the sim backend, over HTTP: a tool call that names a given tool
// with arguments that validate against its schema (non-streaming and as vLLM streams tool-call
// deltas), JSON content for json_object and json_schema, the same answer for the same request, and
// a client's tool conversation sent back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/api/schema_json.h"
#include "server/app/testing/test_server.h"

namespace llm {
namespace {

using json = nlohmann::json;
using testing::request;
using testing::sse_frames;
using testing::start_server;
using testing::test_options;

const json kWeatherSchema = json::parse(R"({"type":"object","properties":{
  "city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]},
  "days":{"type":"integer","minimum":1,"maximum":7},"hourly":{"type":"boolean"},
  "where":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},
           "required":["lat","lon"]},
  "tags":{"type":"array","items":{"type":"string"}}},
  "required":["city","unit","days","hourly","where","tags"]})");

json chat_body(const std::string& extra) {
  json b = json::parse(R"({"messages":[{"role":"user","content":"weather in Paris?"}],
                          "max_tokens":24})");
  b["tools"] =
      json::array({{{"type", "function"},
                    {"function", {{"name", "get_weather"}, {"parameters", kWeatherSchema}}}},
                   {{"type", "function"},
                    {"function",
                     {{"name", "get_time"},
                      {"parameters", {{"type", "object"}, {"properties", json::object()}}}}}}});
  b.update(json::parse(extra.empty() ? "{}" : extra));
  return b;
}

TEST(StructuredOutputApi, ANamedToolIsCalledWithArgumentsMatchingItsSchema) {
  auto server = start_server(test_options());
  const auto r = request(server->port(), "POST", "/v1/chat/completions",
                         chat_body(R"({"tool_choice":{"type":"function",
                                       "function":{"name":"get_weather"}}})")
                             .dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json choice = json::parse(r.body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");  // vLLM and OpenAI: named calls finish "stop"
  EXPECT_TRUE(choice["message"]["content"].is_null());
  const json call = choice["message"]["tool_calls"][0];
  EXPECT_EQ(call["type"], "function");
  EXPECT_EQ(call["function"]["name"], "get_weather");
  EXPECT_EQ(call["id"].get<std::string>().rfind("chatcmpl-tool-", 0), 0u);
  const json args = json::parse(call["function"]["arguments"].get<std::string>());
  EXPECT_FALSE(validate_against(kWeatherSchema, args)) << args.dump();
}

TEST(StructuredOutputApi, AutoAndRequiredCallAToolAndFinishWithToolCallsDeterministically) {
  auto server = start_server(test_options());
  for (const char* choice : {R"({})", R"({"tool_choice":"auto"})", R"({"tool_choice":"required"})",
                             R"({"tool_choice":"auto","seed":5,"n":2})"}) {
    const std::string body = chat_body(choice).dump();
    const auto r = request(server->port(), "POST", "/v1/chat/completions", body);
    ASSERT_EQ(r.status, 200) << r.body;
    const json j = json::parse(r.body);
    for (const json& c : j["choices"]) {
      EXPECT_EQ(c["finish_reason"], "tool_calls") << choice;
      const json call = c["message"]["tool_calls"][0];
      EXPECT_TRUE(call["function"]["name"] == "get_weather" ||
                  call["function"]["name"] == "get_time");
      EXPECT_TRUE(json::parse(call["function"]["arguments"].get<std::string>()).is_object());
    }
    const auto again = request(server->port(), "POST", "/v1/chat/completions", body);
    EXPECT_EQ(json::parse(again.body)["choices"], j["choices"]) << choice;
  }
}

TEST(StructuredOutputApi, ToolCallsStreamAsVllmDeltas) {
  auto server = start_server(test_options());
  const auto r = request(server->port(), "POST", "/v1/chat/completions",
                         chat_body(R"({"stream":true,"tool_choice":{"type":"function",
                                       "function":{"name":"get_weather"}}})")
                             .dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const std::vector<json> f = sse_frames(r.body);
  ASSERT_GE(f.size(), 4u) << r.body;
  EXPECT_EQ(f[0]["choices"][0]["delta"]["role"], "assistant");
  const json head = f[1]["choices"][0]["delta"]["tool_calls"][0];
  EXPECT_EQ(head["index"], 0);
  EXPECT_EQ(head["type"], "function");
  EXPECT_EQ(head["function"]["name"], "get_weather");
  EXPECT_TRUE(head["id"].is_string());
  std::string arguments = head["function"]["arguments"];
  for (size_t i = 2; i + 1 < f.size(); ++i) {
    const json d = f[i]["choices"][0]["delta"]["tool_calls"][0];
    EXPECT_EQ(d["index"], 0);
    EXPECT_FALSE(d.contains("id"));
    EXPECT_FALSE(d["function"].contains("name"));
    arguments += d["function"]["arguments"].get<std::string>();
    EXPECT_TRUE(f[i]["choices"][0]["finish_reason"].is_null());
  }
  EXPECT_GT(f.size(), 4u) << "the arguments come in several chunks";
  EXPECT_EQ(f.back()["choices"][0]["delta"], json::object());
  EXPECT_EQ(f.back()["choices"][0]["finish_reason"], "stop");
  EXPECT_FALSE(validate_against(kWeatherSchema, json::parse(arguments))) << arguments;
  EXPECT_NE(r.body.find("data: [DONE]"), std::string::npos);
}

TEST(StructuredOutputApi, ResponseFormatGivesJsonContentThatValidates) {
  auto server = start_server(test_options());
  const json schema = json::parse(R"({"type":"object","properties":{"name":{"type":"string"},
      "age":{"type":"integer","minimum":0,"maximum":120},"email":{"type":"string",
      "format":"email"}},"required":["name","age"],"additionalProperties":false})");
  json b = json::parse(R"({"messages":[{"role":"user","content":"a person"}],"max_tokens":8})");
  b["response_format"] = {{"type", "json_schema"},
                          {"json_schema", {{"name", "person"}, {"schema", schema}}}};
  auto r = request(server->port(), "POST", "/v1/chat/completions", b.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  json choice = json::parse(r.body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop");
  EXPECT_FALSE(choice["message"].contains("tool_calls"));
  const json person = json::parse(choice["message"]["content"].get<std::string>());
  EXPECT_FALSE(validate_against(schema, person)) << person.dump();

  b["stream"] = true;
  r = request(server->port(), "POST", "/v1/chat/completions", b.dump());
  std::string content;
  for (const json& f : sse_frames(r.body)) content += f["choices"][0]["delta"].value("content", "");
  EXPECT_EQ(json::parse(content), person) << "streaming carries the same answer";

  b = json::parse(R"({"messages":[{"role":"user","content":"anything"}],
                      "response_format":{"type":"json_object"}})");
  r = request(server->port(), "POST", "/v1/chat/completions", b.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  choice = json::parse(r.body)["choices"][0];
  EXPECT_TRUE(json::parse(choice["message"]["content"].get<std::string>()).is_object());
}

TEST(StructuredOutputApi, AToolConversationCanBeSentBackAndBadToolsAre400s) {
  auto server = start_server(test_options());
  json b = chat_body(R"({"tool_choice":"none"})");
  b["messages"].push_back(json::parse(R"({"role":"assistant","content":null,"tool_calls":[
      {"id":"call_1","type":"function","function":{"name":"get_time","arguments":"{}"}}]})"));
  b["messages"].push_back(
      json::parse(R"({"role":"tool","tool_call_id":"call_1","content":"12:00"})"));
  auto r = request(server->port(), "POST", "/v1/chat/completions", b.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(json::parse(r.body)["choices"][0]["message"]["content"].is_string());

  r = request(
      server->port(), "POST", "/v1/chat/completions",
      chat_body(R"({"tool_choice":{"type":"function","function":{"name":"nope"}}})").dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "tool_choice") << r.body;
  r = request(server->port(), "POST", "/v1/chat/completions",
              chat_body(R"({"logprobs":true})").dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "logprobs") << r.body;
  // /v1/completions has no tools: refused as before.
  r = request(server->port(), "POST", "/v1/completions",
              R"({"prompt":"a","tools":[{"type":"function","function":{"name":"f"}}]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "tools") << r.body;
}

TEST(StructuredOutputApi, ResponsesTextFormatJsonSchemaGivesJsonOutputText) {
  auto server = start_server(test_options());
  const json schema = json::parse(
      R"({"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"}},)"
      R"("required":["ok","n"]})");
  json b = {{"input", "status?"}, {"max_output_tokens", 6}};
  b["text"] = {{"format", {{"type", "json_schema"}, {"name", "s"}, {"schema", schema}}}};
  auto r = request(server->port(), "POST", "/v1/responses", b.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = json::parse(r.body);
  EXPECT_EQ(body["status"], "completed");
  const json answer = json::parse(body["output"][0]["content"][0]["text"].get<std::string>());
  EXPECT_FALSE(validate_against(schema, answer)) << answer.dump();

  b["stream"] = true;
  r = request(server->port(), "POST", "/v1/responses", b.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  std::string text;
  for (size_t pos = r.body.find("data: {"); pos != std::string::npos;
       pos = r.body.find("data: {", pos + 1)) {
    const json e = json::parse(r.body.substr(pos + 6, r.body.find("\n\n", pos) - pos - 6));
    if (e["type"] == "response.output_text.delta") text += e["delta"].get<std::string>();
  }
  EXPECT_EQ(json::parse(text), answer);
}

}  // namespace
}  // namespace llm
