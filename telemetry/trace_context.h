// W3C Trace Context (https://www.w3.org/TR/trace-context/): parsing the `traceparent` and
// `tracestate` request headers strictly, and formatting the `traceparent` of our own span.
// traceparent: version 00 is exactly "00-<32 hex>-<16 hex>-<2 hex>" in lowercase; version ff is
// invalid; a later version is parsed by its first 55 characters when the next one is '-' (or there
// is none), as the spec asks; all-zero ids are invalid. tracestate: at most 32 list members of
// key=value with the spec's key and value alphabets and at most 512 characters in all; an invalid
// one is dropped as a whole. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "telemetry/span.h"

namespace llm {

struct TraceParent {
  TraceId trace_id{};
  SpanId parent_id{};
  uint8_t flags = 0;
  bool sampled() const { return flags & 1; }
};

// Nullopt when the header is absent ("") or malformed: the request then starts a new trace.
std::optional<TraceParent> parse_traceparent(std::string_view header);

// "00-<trace id>-<span id>-<flags>".
std::string format_traceparent(const TraceId& trace_id, const SpanId& span_id, uint8_t flags);

// The header as received when valid, "" otherwise (leading and trailing blanks removed).
std::string valid_tracestate(std::string_view header);

}  // namespace llm
