// OTLP/protobuf by hand: one ExportTraceServiceRequest (opentelemetry-proto's
// collector/trace/v1/trace_service.proto) holding one ResourceSpans: the resource, then one
// ScopeSpans with the scope and the spans. Field numbers from trace.proto, common.proto and
// resource.proto (the constants in otlp_protobuf.cpp name each one). Proto3 defaults (zero, empty)
// are left out, as protobuf's own encoders do. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "telemetry/span.h"

namespace llm {

// The serialized request (binary, for Content-Type application/x-protobuf).
std::string encode_otlp_protobuf(const TraceResource& resource, const std::vector<Span>& spans);

}  // namespace llm
