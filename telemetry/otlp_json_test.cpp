#include "telemetry/otlp_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace llm {
namespace {

using nlohmann::json;

Span json_sample() {
  Span s;
  s.trace_id[15] = 0xab;
  s.span_id[0] = 0x01;
  s.parent_span_id[7] = 0xff;
  s.parent_is_remote = true;
  s.trace_state = "rojo=1";
  s.name = "llm_request";
  s.kind = SpanKind::kServer;
  s.start_unix_ns = 1'767'225'600'000'000'000ULL;  // 2026-01-01T00:00:00Z
  s.end_unix_ns = 1'767'225'600'500'000'001ULL;
  s.attributes = {{"s", std::string("x")},
                  {"b", false},
                  {"i", int64_t{9'007'199'254'740'993}},  // not exact as a double
                  {"d", 1.5},
                  {"a", std::vector<std::string>{"stop"}}};
  s.events.push_back(SpanEvent{7, "e", {}});
  s.status = SpanStatusCode::kError;
  s.status_message = "m";
  return s;
}

TEST(OtlpJson, UsesOtlpsJsonMapping) {
  TraceResource r;
  r.attributes = {{"service.name", std::string("llmserve")}};
  const std::string line = encode_otlp_json(r, {json_sample()});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const json j = json::parse(line);
  const json& rs = j.at("resourceSpans").at(0);
  EXPECT_EQ(rs.at("resource").at("attributes").at(0),
            json::parse(R"({"key":"service.name","value":{"stringValue":"llmserve"}})"));
  const json& ss = rs.at("scopeSpans").at(0);
  EXPECT_EQ(ss.at("scope").at("name"), "llmserve");
  const json& s = ss.at("spans").at(0);
  EXPECT_EQ(s.at("traceId"), "000000000000000000000000000000ab");  // hex, not base64
  EXPECT_EQ(s.at("spanId"), "0100000000000000");
  EXPECT_EQ(s.at("parentSpanId"), "00000000000000ff");
  EXPECT_EQ(s.at("traceState"), "rojo=1");
  EXPECT_EQ(s.at("flags"), 0x301);
  EXPECT_EQ(s.at("kind"), 2);                                   // enum as an integer
  EXPECT_EQ(s.at("startTimeUnixNano"), "1767225600000000000");  // int64 as a string
  EXPECT_EQ(s.at("endTimeUnixNano"), "1767225600500000001");
  const json& a = s.at("attributes");
  EXPECT_EQ(a.at(0).at("value"), json::parse(R"({"stringValue":"x"})"));
  EXPECT_EQ(a.at(1).at("value"), json::parse(R"({"boolValue":false})"));
  EXPECT_EQ(a.at(2).at("value"), json::parse(R"({"intValue":"9007199254740993"})"));
  EXPECT_EQ(a.at(3).at("value"), json::parse(R"({"doubleValue":1.5})"));
  EXPECT_EQ(a.at(4).at("value"),
            json::parse(R"({"arrayValue":{"values":[{"stringValue":"stop"}]}})"));
  EXPECT_EQ(s.at("events").at(0), json::parse(R"({"timeUnixNano":"7","name":"e"})"));
  EXPECT_EQ(s.at("status"), json::parse(R"({"message":"m","code":2})"));
}

TEST(OtlpJson, RootSpanAndUnsetStatusLeaveOutTheirDefaults) {
  Span s = json_sample();
  s.parent_span_id = {};
  s.parent_is_remote = false;
  s.trace_state.clear();
  s.status = SpanStatusCode::kUnset;
  s.status_message.clear();
  const json span =
      json::parse(encode_otlp_json({}, {s}))["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
  EXPECT_FALSE(span.contains("parentSpanId"));
  EXPECT_FALSE(span.contains("traceState"));
  EXPECT_EQ(span.at("status"), json::object());
  EXPECT_EQ(span.at("flags"), 0x101);
}

TEST(OtlpJson, EscapesStringsAndReplacesInvalidUtf8) {
  Span s = json_sample();
  s.attributes = {{"text", std::string("a\"b\\c\n\x01 \xc3\xa9 \xff end")},
                  {"nan", std::nan("")},
                  {"tenth", 0.1}};
  const json span =
      json::parse(encode_otlp_json({}, {s}))["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
  EXPECT_EQ(span["attributes"][0]["value"]["stringValue"],
            "a\"b\\c\n\x01 \xc3\xa9 \xef\xbf\xbd end");
  EXPECT_EQ(span["attributes"][1]["value"]["doubleValue"], "NaN");
  EXPECT_EQ(span["attributes"][2]["value"]["doubleValue"].get<double>(), 0.1);
}

}  // namespace
}  // namespace llm
