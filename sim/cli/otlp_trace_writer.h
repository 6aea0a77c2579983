// llmsim replay --otlp-out FILE: the spans llmserve would export for each request of the
// simulated trace (telemetry/request_span.h), on the simulated clock shifted to --start-time, as
// OTLP JSON lines: one ExportTraceServiceRequest of up to kSpansPerLine spans per line, the shape
// of the OpenTelemetry Collector's file exporter. One llm_request span per trace request (its n
// sequences together, as llmserve's per API request), written once its last sequence finishes;
// with detailed traces, the engine's child spans too. Ids come from a SpanIdSource seeded by
// --seed, so the file is byte-identical across runs.
// Thread-safety: none; the replay's engine thread (there is one) drives every recorder.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "telemetry/engine_trace_recorder.h"
#include "telemetry/span.h"
#include "telemetry/span_id_source.h"

namespace llm {

class OtlpTraceWriter {
 public:
  static constexpr size_t kSpansPerLine = 512;

  OtlpTraceWriter(std::ostream& out, std::string model_name, int64_t start_time_unix_ns,
                  uint64_t seed, bool detailed);

  // The observer of one engine (one per engine: request ids are per engine).
  EngineObserver* add_engine();
  // Writes the spans still buffered (call once, after the replay).
  void finish();

  int64_t num_spans() const { return num_spans_; }

 private:
  struct PendingRequest {  // a trace request whose sequences have not all finished
    int32_t finished = 0;
    Request first;  // sequence 0's final state (timeline, counts)
    EngineTraceEvents events;
    std::vector<std::string> finish_reasons;
    int64_t completion_tokens = 0;
  };

  void on_finished(const Request& request, EngineTraceEvents&& events);
  void emit(PendingRequest& pending);
  void flush_line();

  std::ostream& out_;
  const std::string model_name_;
  const int64_t start_time_unix_ns_;
  const bool detailed_;
  TraceResource resource_;
  SpanIdSource ids_;
  std::vector<std::unique_ptr<EngineTraceRecorder>> recorders_;
  std::unordered_map<std::string, PendingRequest> pending_;  // by parent id
  std::vector<Span> buffer_;
  int64_t num_spans_ = 0;
};

}  // namespace llm
