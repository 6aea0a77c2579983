#include "telemetry/otlp_protobuf.h"

#include <gtest/gtest.h>

#include "telemetry/testing/protobuf_reader.h"

namespace llm {
namespace {

using testing::fields_of;
using testing::ProtoField;
using testing::read_fields;

Span sample_span() {
  Span s;
  for (int i = 0; i < 16; ++i) s.trace_id[i] = static_cast<uint8_t>(i + 1);
  for (int i = 0; i < 8; ++i) s.span_id[i] = static_cast<uint8_t>(0xa0 + i);
  for (int i = 0; i < 8; ++i) s.parent_span_id[i] = static_cast<uint8_t>(0xb0 + i);
  s.trace_state = "congo=t61rcWkgMzE";
  s.parent_is_remote = true;
  s.name = "llm_request";
  s.kind = SpanKind::kServer;
  s.start_unix_ns = 1'700'000'000'000'000'000ULL;
  s.end_unix_ns = 1'700'000'000'250'000'000ULL;
  s.attributes = {{"s", std::string("text")},
                  {"b", true},
                  {"i", int64_t{-3}},
                  {"d", 0.25},
                  {"a", std::vector<std::string>{"stop", "length"}}};
  s.events.push_back(SpanEvent{1'700'000'000'100'000'000ULL, "ev", {{"k", std::string("v")}}});
  s.status = SpanStatusCode::kError;
  s.status_message = "aborted";
  return s;
}

// The wire bytes of one KeyValue: field numbers and types as common.proto defines them.
TEST(OtlpProtobuf, WritesAKeyValueWithCommonProtosFieldNumbers) {
  TraceResource r;
  r.attributes = {{"a", int64_t{5}}};
  r.scope_name = "";
  const std::string bytes = encode_otlp_protobuf(r, {});
  // ExportTraceServiceRequest{1: ResourceSpans{1: Resource{1: KeyValue{1:"a", 2:{3: 5}}}, 2: {1:
  // {}}}}
  const std::string key_value =
      "\x0a\x01"
      "a"
      "\x12\x02\x18\x05";
  const std::string resource = "\x0a\x07" + key_value;
  const std::string scope_spans = std::string("\x12\x02\x0a\x00", 4);
  const std::string resource_spans = "\x0a\x09" + resource + scope_spans;
  EXPECT_EQ(bytes, "\x0a\x0f" + resource_spans);
}

TEST(OtlpProtobuf, EverySpanFieldDecodesBack) {
  TraceResource r;
  r.attributes = {{"service.name", std::string("llmserve")}};
  r.scope_version = "1.0";
  const std::vector<ProtoField> request = read_fields(encode_otlp_protobuf(r, {sample_span()}));
  ASSERT_EQ(request.size(), 1u);
  const auto rs = read_fields(request[0].bytes);
  const auto resource = read_fields(fields_of(rs, 1).at(0).bytes);
  const auto kv = read_fields(fields_of(resource, 1).at(0).bytes);
  EXPECT_EQ(fields_of(kv, 1).at(0).bytes, "service.name");
  EXPECT_EQ(fields_of(read_fields(fields_of(kv, 2).at(0).bytes), 1).at(0).bytes, "llmserve");
  const auto scope_spans = read_fields(fields_of(rs, 2).at(0).bytes);
  const auto scope = read_fields(fields_of(scope_spans, 1).at(0).bytes);
  EXPECT_EQ(fields_of(scope, 1).at(0).bytes, "llmserve");
  EXPECT_EQ(fields_of(scope, 2).at(0).bytes, "1.0");
  const auto spans = fields_of(scope_spans, 2);
  ASSERT_EQ(spans.size(), 1u);
  const auto span = read_fields(spans[0].bytes);
  const Span want = sample_span();
  EXPECT_EQ(fields_of(span, 1).at(0).bytes,
            std::string(want.trace_id.begin(), want.trace_id.end()));
  EXPECT_EQ(fields_of(span, 2).at(0).bytes, std::string(want.span_id.begin(), want.span_id.end()));
  EXPECT_EQ(fields_of(span, 3).at(0).bytes, "congo=t61rcWkgMzE");
  EXPECT_EQ(fields_of(span, 4).at(0).bytes,
            std::string(want.parent_span_id.begin(), want.parent_span_id.end()));
  EXPECT_EQ(fields_of(span, 5).at(0).bytes, "llm_request");
  EXPECT_EQ(fields_of(span, 6).at(0).wire_type, 0);
  EXPECT_EQ(fields_of(span, 6).at(0).number_value, 2u);  // SPAN_KIND_SERVER
  EXPECT_EQ(fields_of(span, 7).at(0).wire_type, 1);      // fixed64
  EXPECT_EQ(fields_of(span, 7).at(0).number_value, want.start_unix_ns);
  EXPECT_EQ(fields_of(span, 8).at(0).number_value, want.end_unix_ns);
  EXPECT_EQ(fields_of(span, 16).at(0).wire_type, 5);          // fixed32
  EXPECT_EQ(fields_of(span, 16).at(0).number_value, 0x301u);  // sampled, has-is-remote, remote

  const auto attributes = fields_of(span, 9);
  ASSERT_EQ(attributes.size(), 5u);
  auto value_of = [&](size_t i) {
    const auto kv = read_fields(attributes[i].bytes);
    return read_fields(fields_of(kv, 2).at(0).bytes).at(0);
  };
  EXPECT_EQ(value_of(0).number, 1);
  EXPECT_EQ(value_of(0).bytes, "text");
  EXPECT_EQ(value_of(1).number, 2);
  EXPECT_EQ(value_of(1).number_value, 1u);
  EXPECT_EQ(value_of(2).number, 3);
  EXPECT_EQ(static_cast<int64_t>(value_of(2).number_value), -3);
  EXPECT_EQ(value_of(3).number, 4);
  EXPECT_EQ(testing::as_double(value_of(3).number_value), 0.25);
  EXPECT_EQ(value_of(4).number, 5);
  const auto array = fields_of(read_fields(value_of(4).bytes), 1);
  ASSERT_EQ(array.size(), 2u);
  EXPECT_EQ(read_fields(array[1].bytes).at(0).bytes, "length");

  const auto event = read_fields(fields_of(span, 11).at(0).bytes);
  EXPECT_EQ(fields_of(event, 1).at(0).number_value, 1'700'000'000'100'000'000ULL);
  EXPECT_EQ(fields_of(event, 2).at(0).bytes, "ev");
  EXPECT_EQ(fields_of(event, 3).size(), 1u);
  const auto status = read_fields(fields_of(span, 15).at(0).bytes);
  EXPECT_EQ(fields_of(status, 2).at(0).bytes, "aborted");
  EXPECT_EQ(fields_of(status, 3).at(0).number_value, 2u);  // STATUS_CODE_ERROR
}

TEST(OtlpProtobuf, RootSpanHasNoParentAndUnsetStatusNoStatusField) {
  Span s = sample_span();
  s.parent_span_id = {};
  s.parent_is_remote = false;
  s.status = SpanStatusCode::kUnset;
  s.status_message.clear();
  const auto rs = read_fields(read_fields(encode_otlp_protobuf({}, {s})).at(0).bytes);
  const auto span =
      read_fields(fields_of(read_fields(fields_of(rs, 2).at(0).bytes), 2).at(0).bytes);
  EXPECT_TRUE(fields_of(span, 4).empty());
  EXPECT_TRUE(fields_of(span, 15).empty());
  EXPECT_EQ(fields_of(span, 16).at(0).number_value, 0x101u);
}

TEST(OtlpProtobuf, SeveralSpansShareOneScope) {
  const auto rs = read_fields(
      read_fields(encode_otlp_protobuf({}, {sample_span(), sample_span(), sample_span()}))
          .at(0)
          .bytes);
  EXPECT_EQ(fields_of(rs, 2).size(), 1u);
  EXPECT_EQ(fields_of(read_fields(fields_of(rs, 2).at(0).bytes), 2).size(), 3u);
}

}  // namespace
}  // namespace llm
