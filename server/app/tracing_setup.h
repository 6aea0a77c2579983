// Builds llmserve's RequestTracer from its flags and the OTEL_* environment (null when tracing is
// off): the exporter with its resource (service.name, telemetry.sdk.*), the id source seeded from
// the OS, and the clock mapping from the engines' steady clock to Unix time.
// Thread-safety: call once at start.
#pragma once

#include <prometheus/registry.h>

#include <memory>

#include "server/app/server_options.h"
#include "server/tracing/otlp_settings.h"
#include "server/tracing/request_tracer.h"

namespace llm {

// Throws UsageError for a bad endpoint, protocol, header list, or --collect-detailed-traces
// without an endpoint.
std::unique_ptr<RequestTracer> make_request_tracer(const ServerOptions& options,
                                                   prometheus::Registry* registry,
                                                   const EnvLookup& env);

}  // namespace llm
