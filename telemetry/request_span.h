// The `llm_request` span of one API request (kind SERVER) and, with detailed traces, its child
// spans, built from what the engine measured. Attribute names are vLLM's (vllm/tracing
// SpanAttributes: gen_ai.request.*, gen_ai.usage.*, gen_ai.latency.*) plus the OpenTelemetry GenAI
// semantic conventions' (gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model,
// gen_ai.usage.input_tokens / output_tokens); the latencies use the definitions of the per-request
// metrics (core/request_metrics.h), in seconds as vLLM. docs/tracing.md has the table.
// Prompt and completion text appear only as opt-in span events ("gen_ai.content.prompt",
// "gen_ai.content.completion") when `content` is set.
// Times: the engine clock (integer ns) plus `unix_offset_ns` gives Unix time; llmserve's offset is
// the wall clock minus the steady clock at start, llmsim's is --start-time.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/request.h"
#include "telemetry/span.h"
#include "telemetry/span_id_source.h"
#include "telemetry/trace_context.h"

namespace llm {

// The span's place in its trace, fixed when the request arrives (so the response's traceparent
// header can name it before the span ends).
struct SpanIdentity {
  TraceId trace_id{};
  SpanId span_id{};
  SpanId parent_span_id{};  // zero: a new trace
  std::string trace_state;
  uint8_t trace_flags = 1;
  bool parent_is_remote = false;
  bool sampled() const { return trace_flags & 1; }
};

// The child of `parent` when there is one (its trace id, flags and tracestate), else a new trace.
SpanIdentity start_span_identity(const std::optional<TraceParent>& parent,
                                 const std::string& trace_state, SpanIdSource& ids);

// What the engine did to the request besides its timeline, for --collect-detailed-traces.
struct PrefillChunk {
  Nanos start = kNoTime;  // the step's start and end on the engine clock
  Nanos end = kNoTime;
  int64_t tokens = 0;  // prompt tokens computed in the step
};
struct Preemption {
  Nanos at = kNoTime;       // the step that preempted it
  Nanos resumed = kNoTime;  // scheduled again (kNoTime: it never was)
};
struct EngineTraceEvents {
  std::vector<PrefillChunk> prefill_chunks;
  std::vector<Preemption> preemptions;
};

struct RequestSpanInput {
  SpanIdentity identity;
  std::string operation = "chat";  // gen_ai.operation.name: chat | text_completion
  std::string provider = "llmserve";
  std::string request_id;
  std::string request_model;   // the "model" the client sent
  std::string response_model;  // the served model name
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  int32_t n = 1;
  int32_t num_sequences = 1;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t cached_tokens = 0;
  std::vector<std::string> finish_reasons;
  Timeline timeline;    // the first sequence's (engine clock)
  Nanos end = kNoTime;  // engine clock: when the response was complete (default: finished)
  bool error = false;   // status ERROR with error_message
  std::string error_message;
  bool aborted = false;  // the client went away: status ERROR "aborted"
  // Text, only with --otlp-traces-include-content (null otherwise).
  const std::vector<std::string>* prompts = nullptr;
  const std::vector<std::string>* completions = nullptr;
};

// Appends the llm_request span to `out`, then (detailed != null) its children: "queued",
// one "prefill_chunk" per step that computed prompt tokens, one "preempted" per preemption.
void build_request_spans(const RequestSpanInput& input, int64_t unix_offset_ns,
                         const EngineTraceEvents* detailed, SpanIdSource& ids,
                         std::vector<Span>& out);

}  // namespace llm
