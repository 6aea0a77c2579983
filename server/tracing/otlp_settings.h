// Where and how llmserve exports its spans: --otlp-traces-endpoint (vLLM's flag) or the
// OpenTelemetry exporter environment variables, resolved once at start.
// Endpoint: the flag's URL as given, with /v1/traces appended when it has no path (so both vLLM's
// full URL and the Collector's base http://host:4318 work); OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as
// the full URL (the OTel spec's rule for the signal-specific variable). Only http:// URLs (no
// TLS). Protocol: http/protobuf (default) or http/json from OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
// (or OTEL_EXPORTER_OTLP_PROTOCOL); compression gzip or none from ..._COMPRESSION; headers from
// ..._HEADERS ("k=v,k2=v2", values URL-decoded); OTEL_SERVICE_NAME (llmserve); the batch span
// processor's OTEL_BSP_* variables with the spec's defaults. Errors throw UsageError naming the
// flag or variable. Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llm {

struct OtlpSettings {
  std::string url;  // the full URL spans are posted to
  std::string host;
  int port = 80;
  std::string path = "/v1/traces";
  bool json = false;  // http/json instead of http/protobuf
  bool gzip = false;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string service_name = "llmserve";
  int64_t max_queue_size = 2048;      // OTEL_BSP_MAX_QUEUE_SIZE: spans waiting for export
  int64_t max_batch_size = 512;       // OTEL_BSP_MAX_EXPORT_BATCH_SIZE: spans per request
  int64_t schedule_delay_ms = 5000;   // OTEL_BSP_SCHEDULE_DELAY: the longest a span waits
  int64_t export_timeout_ms = 30000;  // OTEL_BSP_EXPORT_TIMEOUT: one export's deadline
};

// getenv, or a table in tests.
using EnvLookup = std::function<const char*(const char* name)>;

// Nullopt when neither the flag nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (tracing off).
std::optional<OtlpSettings> resolve_otlp_settings(const std::string& flag_endpoint,
                                                  const EnvLookup& env);

struct HttpUrl {
  std::string host;
  int port = 80;
  std::string path;  // "" when the URL has none
};
// Parses http://host[:port][/path]; throws UsageError("<what>: ...").
HttpUrl parse_http_url(const std::string& url, const std::string& what);

}  // namespace llm
