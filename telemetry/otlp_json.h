// OTLP/JSON: the same ExportTraceServiceRequest as otlp_protobuf.h in the proto3 JSON mapping as
// the OTLP specification amends it: lowerCamelCase field names, trace and span ids as lowercase
// hex (not base64), 64-bit integers (times, intValue) as decimal strings, enums as integers,
// default values left out. One line, no trailing newline: the shape of a line of the Collector's
// file exporter. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "telemetry/span.h"

namespace llm {

std::string encode_otlp_json(const TraceResource& resource, const std::vector<Span>& spans);

}  // namespace llm
