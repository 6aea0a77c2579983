// A finished span as OTLP carries it: ids, parent, W3C tracestate, name, kind, start and end in
// Unix nanoseconds, typed attributes, events and a status. Plain values: the encoders
// (otlp_protobuf.h, otlp_json.h) turn a batch of them into one ExportTraceServiceRequest.
// Thread-safety: plain values.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace llm {

using TraceId = std::array<uint8_t, 16>;
using SpanId = std::array<uint8_t, 8>;

// OTLP's Span.SpanKind values.
enum class SpanKind : int32_t { kInternal = 1, kServer = 2, kClient = 3 };
// OTLP's Status.StatusCode values.
enum class SpanStatusCode : int32_t { kUnset = 0, kOk = 1, kError = 2 };

// An attribute value: OTLP's AnyValue restricted to what OTel attributes allow.
using AttributeValue = std::variant<std::string, bool, int64_t, double, std::vector<std::string>>;

// The key is a view of a string with static storage (the attribute names are literals): no
// allocation per attribute on the request path, and none to free on the exporter's thread.
struct Attribute {
  std::string_view key;
  AttributeValue value;
};

struct SpanEvent {
  uint64_t time_unix_ns = 0;
  std::string name;
  std::vector<Attribute> attributes;
};

struct Span {
  TraceId trace_id{};
  SpanId span_id{};
  SpanId parent_span_id{};  // all zero: a root span
  std::string trace_state;  // the caller's W3C tracestate, kept as received
  uint8_t trace_flags = 1;  // W3C trace-flags (01: sampled)
  bool parent_is_remote = false;
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  uint64_t start_unix_ns = 0;
  uint64_t end_unix_ns = 0;
  std::vector<Attribute> attributes;
  std::vector<SpanEvent> events;
  SpanStatusCode status = SpanStatusCode::kUnset;
  std::string status_message;
};

// What every export request says about the process: resource attributes (service.name ...) and
// the instrumentation scope.
struct TraceResource {
  std::vector<Attribute> attributes;
  std::string scope_name = "llmserve";
  std::string scope_version;
};

// The OTLP Span.flags of a span: its W3C trace flags in bits 0-7, and bits 8 and 9 saying whether
// the parent is known to be remote (SpanFlags in trace.proto of opentelemetry-proto 1.1 and later).
inline uint32_t otlp_span_flags(const Span& s) {
  constexpr uint32_t kHasIsRemote = 0x100;
  constexpr uint32_t kIsRemote = 0x200;
  return s.trace_flags | kHasIsRemote | (s.parent_is_remote ? kIsRemote : 0u);
}

inline bool is_zero(const SpanId& id) {
  for (uint8_t b : id) {
    if (b) return false;
  }
  return true;
}
inline bool is_zero(const TraceId& id) {
  for (uint8_t b : id) {
    if (b) return false;
  }
  return true;
}

// Lowercase hex of an id (32 or 16 characters).
template <size_t N>
std::string to_hex(const std::array<uint8_t, N>& id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * N, '0');
  for (size_t i = 0; i < N; ++i) {
    out[2 * i] = kHex[id[i] >> 4];
    out[2 * i + 1] = kHex[id[i] & 15];
  }
  return out;
}

}  // namespace llm
