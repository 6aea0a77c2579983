#include "server/app/tracing_setup.h"

#include <chrono>
#include <random>

#include "core/flag_set.h"

namespace llm {

std::unique_ptr<RequestTracer> make_request_tracer(const ServerOptions& o,
                                                   prometheus::Registry* registry,
                                                   const EnvLookup& env) {
  std::optional<OtlpSettings> settings = resolve_otlp_settings(o.otlp_traces_endpoint, env);
  if (!settings) {
    if (!o.collect_detailed_traces.empty()) {
      throw UsageError(
          "--collect-detailed-traces: needs tracing on (--otlp-traces-endpoint URL or "
          "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)");
    }
    if (o.otlp_traces_include_content) {
      throw UsageError(
          "--otlp-traces-include-content: needs tracing on (--otlp-traces-endpoint URL or "
          "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)");
    }
    return nullptr;
  }
  TraceResource resource;
  resource.attributes = {{"service.name", settings->service_name},
                         {"telemetry.sdk.name", std::string("llmserve")},
                         {"telemetry.sdk.language", std::string("cpp")}};
  resource.scope_name = "llmserve";
  RequestTracerOptions t;
  t.include_content = o.otlp_traces_include_content;
  t.detailed = !o.collect_detailed_traces.empty();
  using namespace std::chrono;
  t.unix_offset_ns = duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count() -
                     duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
  std::random_device os_random;
  t.seed = (static_cast<uint64_t>(os_random()) << 32) ^ os_random();
  std::fprintf(stderr, "llmserve: exporting spans to %s (%s%s)\n", settings->url.c_str(),
               settings->json ? "http/json" : "http/protobuf", settings->gzip ? ", gzip" : "");
  auto exporter = std::make_unique<SpanExporter>(*settings, std::move(resource), registry);
  return std::make_unique<RequestTracer>(t, std::move(exporter));
}

}  // namespace llm
