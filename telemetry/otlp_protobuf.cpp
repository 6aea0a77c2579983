#include "telemetry/otlp_protobuf.h"

#include <cstring>

namespace llm {
namespace {

// Wire types.
constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLengthDelimited = 2;
constexpr int kFixed32 = 5;

// ExportTraceServiceRequest / ResourceSpans / Resource / ScopeSpans / InstrumentationScope.
constexpr int kRequestResourceSpans = 1;
constexpr int kResourceSpansResource = 1;
constexpr int kResourceSpansScopeSpans = 2;
constexpr int kResourceAttributes = 1;
constexpr int kScopeSpansScope = 1;
constexpr int kScopeSpansSpans = 2;
constexpr int kScopeName = 1;
constexpr int kScopeVersion = 2;
// Span.
constexpr int kSpanTraceId = 1;
constexpr int kSpanSpanId = 2;
constexpr int kSpanTraceState = 3;
constexpr int kSpanParentSpanId = 4;
constexpr int kSpanName = 5;
constexpr int kSpanKind = 6;
constexpr int kSpanStartTime = 7;
constexpr int kSpanEndTime = 8;
constexpr int kSpanAttributes = 9;
constexpr int kSpanEvents = 11;
constexpr int kSpanStatus = 15;
constexpr int kSpanFlags = 16;
// Span.Event / Status.
constexpr int kEventTime = 1;
constexpr int kEventName = 2;
constexpr int kEventAttributes = 3;
constexpr int kStatusMessage = 2;
constexpr int kStatusCode = 3;
// KeyValue / AnyValue / ArrayValue.
constexpr int kKeyValueKey = 1;
constexpr int kKeyValueValue = 2;
constexpr int kAnyString = 1;
constexpr int kAnyBool = 2;
constexpr int kAnyInt = 3;
constexpr int kAnyDouble = 4;
constexpr int kAnyArray = 5;
constexpr int kArrayValues = 1;

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void put_tag(std::string& out, int field, int wire_type) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire_type));
}

void put_bytes(std::string& out, int field, const void* data, size_t size) {
  put_tag(out, field, kLengthDelimited);
  put_varint(out, size);
  out.append(static_cast<const char*>(data), size);
}

void put_string(std::string& out, int field, std::string_view s) {
  if (!s.empty()) put_bytes(out, field, s.data(), s.size());
}

void put_message(std::string& out, int field, const std::string& body) {
  put_bytes(out, field, body.data(), body.size());
}

void put_fixed64(std::string& out, int field, uint64_t v) {
  if (v == 0) return;
  put_tag(out, field, kFixed64);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

void put_fixed32(std::string& out, int field, uint32_t v) {
  if (v == 0) return;
  put_tag(out, field, kFixed32);
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

void put_uvarint_field(std::string& out, int field, uint64_t v) {
  if (v == 0) return;
  put_tag(out, field, kVarint);
  put_varint(out, v);
}

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// A length-delimited field's size on the wire: one-byte tag (fields below 16), length, body.
size_t delimited_size(size_t body) { return 1 + varint_size(body) + body; }

// The encoded size of an AnyValue, so that attributes are written straight into the output
// (their length prefixes known first) without a temporary string each.
size_t any_value_size(const AttributeValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return delimited_size(s->size());
  if (std::holds_alternative<bool>(value)) return 2;
  if (const auto* i = std::get_if<int64_t>(&value)) {
    return 1 + varint_size(static_cast<uint64_t>(*i));
  }
  if (std::holds_alternative<double>(value)) return 9;
  size_t array = 0;
  for (const std::string& s : std::get<std::vector<std::string>>(value)) {
    array += delimited_size(delimited_size(s.size()));
  }
  return delimited_size(array);
}

// AnyValue is a oneof: the chosen field is written even when it holds its default.
void put_protobuf_any_value(std::string& out, const AttributeValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    put_bytes(out, kAnyString, s->data(), s->size());
  } else if (const auto* b = std::get_if<bool>(&value)) {
    put_tag(out, kAnyBool, kVarint);
    put_varint(out, *b ? 1 : 0);
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    put_tag(out, kAnyInt, kVarint);
    put_varint(out, static_cast<uint64_t>(*i));  // int64: two's complement, 10 bytes if negative
  } else if (const auto* d = std::get_if<double>(&value)) {
    uint64_t bits;
    std::memcpy(&bits, d, sizeof bits);
    put_tag(out, kAnyDouble, kFixed64);
    for (int k = 0; k < 8; ++k) out += static_cast<char>((bits >> (8 * k)) & 0xff);
  } else {
    const auto& strings = std::get<std::vector<std::string>>(value);
    size_t array = 0;
    for (const std::string& s : strings) array += delimited_size(delimited_size(s.size()));
    put_tag(out, kAnyArray, kLengthDelimited);
    put_varint(out, array);
    for (const std::string& s : strings) {
      put_tag(out, kArrayValues, kLengthDelimited);
      put_varint(out, delimited_size(s.size()));
      put_bytes(out, kAnyString, s.data(), s.size());
    }
  }
}

void put_attributes(std::string& out, int field, const std::vector<Attribute>& attributes) {
  for (const Attribute& a : attributes) {
    const size_t value_size = any_value_size(a.value);
    put_tag(out, field, kLengthDelimited);
    put_varint(out,
               (a.key.empty() ? 0 : delimited_size(a.key.size())) + delimited_size(value_size));
    put_string(out, kKeyValueKey, a.key);
    put_tag(out, kKeyValueValue, kLengthDelimited);
    put_varint(out, value_size);
    put_protobuf_any_value(out, a.value);
  }
}

std::string span_message(const Span& s) {
  std::string out;
  put_bytes(out, kSpanTraceId, s.trace_id.data(), s.trace_id.size());
  put_bytes(out, kSpanSpanId, s.span_id.data(), s.span_id.size());
  put_string(out, kSpanTraceState, s.trace_state);
  if (!is_zero(s.parent_span_id)) {
    put_bytes(out, kSpanParentSpanId, s.parent_span_id.data(), s.parent_span_id.size());
  }
  put_string(out, kSpanName, s.name);
  put_uvarint_field(out, kSpanKind, static_cast<uint64_t>(s.kind));
  put_fixed64(out, kSpanStartTime, s.start_unix_ns);
  put_fixed64(out, kSpanEndTime, s.end_unix_ns);
  put_attributes(out, kSpanAttributes, s.attributes);
  for (const SpanEvent& e : s.events) {
    std::string event;
    put_fixed64(event, kEventTime, e.time_unix_ns);
    put_string(event, kEventName, e.name);
    put_attributes(event, kEventAttributes, e.attributes);
    put_message(out, kSpanEvents, event);
  }
  if (s.status != SpanStatusCode::kUnset || !s.status_message.empty()) {
    std::string status;
    put_string(status, kStatusMessage, s.status_message);
    put_uvarint_field(status, kStatusCode, static_cast<uint64_t>(s.status));
    put_message(out, kSpanStatus, status);
  }
  put_fixed32(out, kSpanFlags, otlp_span_flags(s));
  return out;
}

}  // namespace

std::string encode_otlp_protobuf(const TraceResource& resource, const std::vector<Span>& spans) {
  std::string resource_message;
  put_attributes(resource_message, kResourceAttributes, resource.attributes);
  std::string scope;
  put_string(scope, kScopeName, resource.scope_name);
  put_string(scope, kScopeVersion, resource.scope_version);
  std::string scope_spans;
  put_message(scope_spans, kScopeSpansScope, scope);
  for (const Span& s : spans) put_message(scope_spans, kScopeSpansSpans, span_message(s));
  std::string resource_spans;
  put_message(resource_spans, kResourceSpansResource, resource_message);
  put_message(resource_spans, kResourceSpansScopeSpans, scope_spans);
  std::string request;
  put_message(request, kRequestResourceSpans, resource_spans);
  return request;
}

}  // namespace llm
