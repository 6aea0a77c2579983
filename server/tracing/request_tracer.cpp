#include "server/tracing/request_tracer.h"

namespace llm {

RequestTracer::RequestTracer(RequestTracerOptions options, std::unique_ptr<SpanExporter> exporter)
    : options_(options), exporter_(std::move(exporter)), ids_(options.seed) {}

SpanIdentity RequestTracer::start(const std::string& traceparent, const std::string& tracestate) {
  const std::optional<TraceParent> parent = parse_traceparent(traceparent);
  const std::string state = parent ? valid_tracestate(tracestate) : std::string();
  std::lock_guard<std::mutex> lock(mutex_);
  return start_span_identity(parent, state, ids_);
}

void RequestTracer::finish(const RequestSpanInput& input, const EngineService* engine,
                           const std::string& engine_request_id) {
  if (!input.identity.sampled()) return;
  if (options_.detailed) {
    for (auto& [e, recorder] : recorders_) {
      if (e != engine) continue;
      // The job's strings and text outlive this call only in the copy.
      auto kept = std::make_shared<RequestSpanInput>(input);
      auto texts =
          std::make_shared<std::pair<std::vector<std::string>, std::vector<std::string>>>();
      if (input.prompts) texts->first = *input.prompts;
      if (input.completions) texts->second = *input.completions;
      kept->prompts = input.prompts ? &texts->first : nullptr;
      kept->completions = input.completions ? &texts->second : nullptr;
      recorder->when_finished(engine_request_id, [this, kept, texts](EngineTraceEvents&& events) {
        emit(*kept, &events);
      });
      return;
    }
  }
  emit(input, nullptr);
}

void RequestTracer::emit(const RequestSpanInput& input, const EngineTraceEvents* detailed) {
  std::vector<Span> spans;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    build_request_spans(input, options_.unix_offset_ns, detailed, ids_, spans);
  }
  exporter_->submit(spans);
}

EngineTraceRecorder* RequestTracer::add_recorder() {
  recorders_.emplace_back(nullptr, std::make_unique<EngineTraceRecorder>());
  return recorders_.back().second.get();
}

void RequestTracer::bind(EngineTraceRecorder* recorder, const EngineService* engine) {
  for (auto& [e, r] : recorders_) {
    if (r.get() == recorder) e = engine;
  }
}

}  // namespace llm
