// llmserve's tracing: one per server when --otlp-traces-endpoint (or its variable) is set. Gives
// each API request its span identity when it arrives (child of the caller's traceparent, a new
// trace otherwise) and, when the request ends, builds its llm_request span (and, with
// --collect-detailed-traces, the engine's child spans from the engine's recorder) and hands them
// to the exporter. A request whose caller sent traceparent with the sampled flag off is not
// exported (OpenTelemetry's default parent-based sampler).
// Thread-safety: start() and finish() may be called from any thread (a mutex guards the id
// source); the recorders run on their engines' threads.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "server/tracing/span_exporter.h"
#include "telemetry/engine_trace_recorder.h"
#include "telemetry/request_span.h"

namespace llm {

class EngineService;

struct RequestTracerOptions {
  bool include_content = false;  // --otlp-traces-include-content
  bool detailed = false;         // --collect-detailed-traces
  int64_t unix_offset_ns = 0;    // Unix time minus the engines' steady clock
  uint64_t seed = 1;             // of the id source (from the OS)
};

class RequestTracer {
 public:
  RequestTracer(RequestTracerOptions options, std::unique_ptr<SpanExporter> exporter);

  bool include_content() const { return options_.include_content; }
  SpanExporter& exporter() { return *exporter_; }

  // The span identity of a request that sent these headers ("" when absent).
  SpanIdentity start(const std::string& traceparent, const std::string& tracestate);
  // Builds and queues the request's spans; `engine` and `engine_request_id` find the detailed
  // events (engine may be null): with them, the spans go out once the engine has finished the
  // request too.
  void finish(const RequestSpanInput& input, const EngineService* engine,
              const std::string& engine_request_id);

  // A recorder to install as an observer of an engine (with --collect-detailed-traces), then to
  // bind() to that engine once it exists. Before serving.
  EngineTraceRecorder* add_recorder();
  void bind(EngineTraceRecorder* recorder, const EngineService* engine);

 private:
  void emit(const RequestSpanInput& input, const EngineTraceEvents* detailed);

  const RequestTracerOptions options_;
  std::unique_ptr<SpanExporter> exporter_;
  std::vector<std::pair<const EngineService*, std::unique_ptr<EngineTraceRecorder>>> recorders_;
  std::mutex mutex_;  // guards ids_
  SpanIdSource ids_;
};

}  // namespace llm
