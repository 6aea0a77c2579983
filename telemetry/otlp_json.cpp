#include "telemetry/otlp_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace llm {
namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  size_t n = 0;
  uint32_t min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// A JSON string; bytes that are not UTF-8 become U+FFFD.
void put_string(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = utf8_sequence(s, i);
      if (n == 0) {
        out += "\xef\xbf\xbd";
        ++i;
      } else {
        out.append(s.data() + i, n);
        i += n;
      }
      continue;
    }
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  out += '"';
}

// 64-bit integers as decimal strings (proto3 JSON).
void put_int_string(std::string& out, uint64_t v) {
  out += '"';
  out += std::to_string(v);
  out += '"';
}

void put_double(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "\"NaN\"";
  } else if (std::isinf(d)) {
    out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest round-trip form
    out.append(buf, r.ptr);
  }
}

void put_json_any_value(std::string& out, const AttributeValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    out += "{\"stringValue\":";
    put_string(out, *s);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    out += *b ? "{\"boolValue\":true" : "{\"boolValue\":false";
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    out += "{\"intValue\":\"";
    out += std::to_string(*i);
    out += '"';
  } else if (const auto* d = std::get_if<double>(&value)) {
    out += "{\"doubleValue\":";
    put_double(out, *d);
  } else {
    out += "{\"arrayValue\":{\"values\":[";
    bool first = true;
    for (const std::string& s : std::get<std::vector<std::string>>(value)) {
      if (!first) out += ',';
      first = false;
      out += "{\"stringValue\":";
      put_string(out, s);
      out += '}';
    }
    out += "]}";
  }
  out += '}';
}

void put_attributes(std::string& out, const std::vector<Attribute>& attributes) {
  out += '[';
  for (size_t i = 0; i < attributes.size(); ++i) {
    if (i) out += ',';
    out += "{\"key\":";
    put_string(out, attributes[i].key);
    out += ",\"value\":";
    put_json_any_value(out, attributes[i].value);
    out += '}';
  }
  out += ']';
}

void put_span(std::string& out, const Span& s) {
  out += "{\"traceId\":\"";
  out += to_hex(s.trace_id);
  out += "\",\"spanId\":\"";
  out += to_hex(s.span_id);
  out += '"';
  if (!s.trace_state.empty()) {
    out += ",\"traceState\":";
    put_string(out, s.trace_state);
  }
  if (!is_zero(s.parent_span_id)) {
    out += ",\"parentSpanId\":\"";
    out += to_hex(s.parent_span_id);
    out += '"';
  }
  out += ",\"flags\":";
  out += std::to_string(otlp_span_flags(s));
  out += ",\"name\":";
  put_string(out, s.name);
  out += ",\"kind\":";
  out += std::to_string(static_cast<int32_t>(s.kind));
  out += ",\"startTimeUnixNano\":";
  put_int_string(out, s.start_unix_ns);
  out += ",\"endTimeUnixNano\":";
  put_int_string(out, s.end_unix_ns);
  if (!s.attributes.empty()) {
    out += ",\"attributes\":";
    put_attributes(out, s.attributes);
  }
  if (!s.events.empty()) {
    out += ",\"events\":[";
    for (size_t i = 0; i < s.events.size(); ++i) {
      const SpanEvent& e = s.events[i];
      if (i) out += ',';
      out += "{\"timeUnixNano\":";
      put_int_string(out, e.time_unix_ns);
      out += ",\"name\":";
      put_string(out, e.name);
      if (!e.attributes.empty()) {
        out += ",\"attributes\":";
        put_attributes(out, e.attributes);
      }
      out += '}';
    }
    out += ']';
  }
  out += ",\"status\":{";
  bool any = false;
  if (!s.status_message.empty()) {
    out += "\"message\":";
    put_string(out, s.status_message);
    any = true;
  }
  if (s.status != SpanStatusCode::kUnset) {
    if (any) out += ',';
    out += "\"code\":";
    out += std::to_string(static_cast<int32_t>(s.status));
  }
  out += "}}";
}

}  // namespace

std::string encode_otlp_json(const TraceResource& resource, const std::vector<Span>& spans) {
  std::string out;
  out.reserve(256 + spans.size() * 2048);
  out += "{\"resourceSpans\":[{\"resource\":{\"attributes\":";
  put_attributes(out, resource.attributes);
  out += "},\"scopeSpans\":[{\"scope\":{";
  if (!resource.scope_name.empty()) {
    out += "\"name\":";
    put_string(out, resource.scope_name);
  }
  if (!resource.scope_version.empty()) {
    if (!resource.scope_name.empty()) out += ',';
    out += "\"version\":";
    put_string(out, resource.scope_version);
  }
  out += "},\"spans\":[";
  for (size_t i = 0; i < spans.size(); ++i) {
    if (i) out += ',';
    put_span(out, spans[i]);
  }
  out += "]}]}]}";
  return out;
}

}  // namespace llm
