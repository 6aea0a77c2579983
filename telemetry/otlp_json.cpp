#include "telemetry/otlp_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace llm {
namespace {

using Json = nlohmann::ordered_json;

// Span.flags bits 8 and 9 (see otlp_protobuf.cpp).
constexpr uint32_t kFlagHasIsRemote = 0x100;
constexpr uint32_t kFlagIsRemote = 0x200;

Json any_value(const AttributeValue& value) {
  Json v = Json::object();
  if (const auto* s = std::get_if<std::string>(&value)) {
    v["stringValue"] = *s;
  } else if (const auto* b = std::get_if<bool>(&value)) {
    v["boolValue"] = *b;
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    v["intValue"] = std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&value)) {
    // proto3 JSON spells the non-finite doubles as strings.
    if (std::isnan(*d)) {
      v["doubleValue"] = "NaN";
    } else if (std::isinf(*d)) {
      v["doubleValue"] = *d > 0 ? "Infinity" : "-Infinity";
    } else {
      v["doubleValue"] = *d;
    }
  } else {
    Json values = Json::array();
    for (const std::string& s : std::get<std::vector<std::string>>(value)) {
      values.push_back(Json{{"stringValue", s}});
    }
    v["arrayValue"] = Json{{"values", std::move(values)}};
  }
  return v;
}

Json attributes_json(const std::vector<Attribute>& attributes) {
  Json out = Json::array();
  for (const Attribute& a : attributes) {
    out.push_back(Json{{"key", a.key}, {"value", any_value(a.value)}});
  }
  return out;
}

Json span_json(const Span& s) {
  Json j;
  j["traceId"] = to_hex(s.trace_id);
  j["spanId"] = to_hex(s.span_id);
  if (!s.trace_state.empty()) j["traceState"] = s.trace_state;
  if (!is_zero(s.parent_span_id)) j["parentSpanId"] = to_hex(s.parent_span_id);
  uint32_t flags = s.trace_flags | kFlagHasIsRemote;
  if (s.parent_is_remote) flags |= kFlagIsRemote;
  j["flags"] = flags;
  j["name"] = s.name;
  j["kind"] = static_cast<int32_t>(s.kind);
  j["startTimeUnixNano"] = std::to_string(s.start_unix_ns);
  j["endTimeUnixNano"] = std::to_string(s.end_unix_ns);
  if (!s.attributes.empty()) j["attributes"] = attributes_json(s.attributes);
  if (!s.events.empty()) {
    Json events = Json::array();
    for (const SpanEvent& e : s.events) {
      Json event{{"timeUnixNano", std::to_string(e.time_unix_ns)}, {"name", e.name}};
      if (!e.attributes.empty()) event["attributes"] = attributes_json(e.attributes);
      events.push_back(std::move(event));
    }
    j["events"] = std::move(events);
  }
  Json status = Json::object();
  if (!s.status_message.empty()) status["message"] = s.status_message;
  if (s.status != SpanStatusCode::kUnset) status["code"] = static_cast<int32_t>(s.status);
  j["status"] = std::move(status);
  return j;
}

}  // namespace

std::string encode_otlp_json(const TraceResource& resource, const std::vector<Span>& spans) {
  Json scope = Json::object();
  if (!resource.scope_name.empty()) scope["name"] = resource.scope_name;
  if (!resource.scope_version.empty()) scope["version"] = resource.scope_version;
  Json span_array = Json::array();
  for (const Span& s : spans) span_array.push_back(span_json(s));
  Json resource_spans{
      {"resource", Json{{"attributes", attributes_json(resource.attributes)}}},
      {"scopeSpans", Json::array({Json{{"scope", std::move(scope)}, {"spans", span_array}}})}};
  Json request{{"resourceSpans", Json::array({std::move(resource_spans)})}};
  return request.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace llm
