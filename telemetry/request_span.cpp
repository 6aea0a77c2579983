#include "telemetry/request_span.h"

#include "core/request_metrics.h"

namespace llm {
namespace {

uint64_t to_unix(Nanos engine_time, int64_t offset) {
  const int64_t t = engine_time + offset;
  return t < 0 ? 0 : static_cast<uint64_t>(t);
}

void add(std::vector<Attribute>& out, const char* key, AttributeValue value) {
  out.push_back(Attribute{key, std::move(value)});
}

void add_seconds(std::vector<Attribute>& out, const char* key, const std::optional<double>& s) {
  if (s) add(out, key, *s);
}

Span child_of(const Span& parent, const char* name, SpanIdSource& ids) {
  Span c;
  c.trace_id = parent.trace_id;
  c.span_id = ids.next_span_id();
  c.parent_span_id = parent.span_id;
  c.trace_state = parent.trace_state;
  c.trace_flags = parent.trace_flags;
  c.name = name;
  c.kind = SpanKind::kInternal;
  return c;
}

std::vector<Attribute> request_attributes(const RequestSpanInput& in, Nanos end) {
  std::vector<Attribute> a;
  a.reserve(24);
  add(a, "gen_ai.operation.name", in.operation);
  add(a, "gen_ai.provider.name", in.provider);
  add(a, "gen_ai.request.model", in.request_model);
  add(a, "gen_ai.response.model", in.response_model);
  add(a, "gen_ai.request.id", in.request_id);
  if (in.max_tokens) add(a, "gen_ai.request.max_tokens", *in.max_tokens);
  if (in.temperature) add(a, "gen_ai.request.temperature", *in.temperature);
  if (in.top_p) add(a, "gen_ai.request.top_p", *in.top_p);
  add(a, "gen_ai.request.n", static_cast<int64_t>(in.n));
  add(a, "gen_ai.usage.num_sequences", static_cast<int64_t>(in.num_sequences));
  add(a, "gen_ai.usage.input_tokens", in.prompt_tokens);
  add(a, "gen_ai.usage.output_tokens", in.completion_tokens);
  add(a, "gen_ai.usage.prompt_tokens", in.prompt_tokens);
  add(a, "gen_ai.usage.completion_tokens", in.completion_tokens);
  add(a, "gen_ai.usage.cached_tokens", in.cached_tokens);
  add(a, "gen_ai.response.finish_reasons", in.finish_reasons);
  Timeline t = in.timeline;
  if (t.finished == kNoTime) t.finished = end;
  const RequestIntervals iv = compute_intervals(t, in.completion_tokens);
  add_seconds(a, "gen_ai.latency.time_in_queue", iv.queue_s);
  add_seconds(a, "gen_ai.latency.time_to_first_token", iv.ttft_s);
  add_seconds(a, "gen_ai.latency.time_in_model_prefill", iv.prefill_s);
  add_seconds(a, "gen_ai.latency.time_in_model_decode", iv.decode_s);
  add_seconds(a, "gen_ai.latency.time_in_model_inference", iv.inference_s);
  add_seconds(a, "gen_ai.latency.e2e", iv.e2e_s);
  add(a, "llmserve.num_preemptions", static_cast<int64_t>(t.num_preemptions));
  return a;
}

void add_content_events(const RequestSpanInput& in, Span& span) {
  if (in.prompts) {
    for (const std::string& p : *in.prompts) {
      span.events.push_back(
          SpanEvent{span.start_unix_ns, "gen_ai.content.prompt", {Attribute{"gen_ai.prompt", p}}});
    }
  }
  if (in.completions) {
    for (const std::string& c : *in.completions) {
      span.events.push_back(SpanEvent{
          span.end_unix_ns, "gen_ai.content.completion", {Attribute{"gen_ai.completion", c}}});
    }
  }
}

void add_detailed_children(const RequestSpanInput& in, const EngineTraceEvents& events, Nanos end,
                           int64_t offset, SpanIdSource& ids, std::vector<Span>& out) {
  const size_t parent_index = out.size() - 1;
  auto push = [&](const char* name, Nanos start, Nanos stop) -> Span& {
    out.push_back(child_of(out[parent_index], name, ids));
    out.back().start_unix_ns = to_unix(start, offset);
    out.back().end_unix_ns = to_unix(stop == kNoTime ? end : stop, offset);
    return out.back();
  };
  const Timeline& t = in.timeline;
  if (t.queued != kNoTime) push("queued", t.queued, t.scheduled);
  for (const PrefillChunk& c : events.prefill_chunks) {
    // Built in place (no Attribute moved: GCC 12 warns, wrongly, on moving its variant).
    Attribute& tokens = push("prefill_chunk", c.start, c.end).attributes.emplace_back();
    tokens.key = "llmserve.prefill.tokens";
    tokens.value = c.tokens;
  }
  for (const Preemption& p : events.preemptions) {
    if (p.at != kNoTime) push("preempted", p.at, p.resumed);  // untimed: left before a decision
  }
}

}  // namespace

SpanIdentity start_span_identity(const std::optional<TraceParent>& parent,
                                 const std::string& trace_state, SpanIdSource& ids) {
  SpanIdentity s;
  if (parent) {
    s.trace_id = parent->trace_id;
    s.parent_span_id = parent->parent_id;
    s.trace_flags = parent->flags;
    s.trace_state = trace_state;
    s.parent_is_remote = true;
  } else {
    s.trace_id = ids.next_trace_id();
  }
  s.span_id = ids.next_span_id();
  return s;
}

void build_request_spans(const RequestSpanInput& in, int64_t offset,
                         const EngineTraceEvents* detailed, SpanIdSource& ids,
                         std::vector<Span>& out) {
  const Timeline& t = in.timeline;
  Nanos end = in.end != kNoTime ? in.end : t.finished;
  if (end == kNoTime) end = t.last_token != kNoTime ? t.last_token : t.arrival;
  const Nanos start = t.arrival != kNoTime ? t.arrival : end;
  Span s;
  s.trace_id = in.identity.trace_id;
  s.span_id = in.identity.span_id;
  s.parent_span_id = in.identity.parent_span_id;
  s.trace_state = in.identity.trace_state;
  s.trace_flags = in.identity.trace_flags;
  s.parent_is_remote = in.identity.parent_is_remote;
  s.name = "llm_request";
  s.kind = SpanKind::kServer;
  s.start_unix_ns = to_unix(start, offset);
  s.end_unix_ns = to_unix(end < start ? start : end, offset);
  s.attributes = request_attributes(in, end);
  if (in.error) {
    s.status = SpanStatusCode::kError;
    s.status_message = in.error_message;
  } else if (in.aborted) {
    s.status = SpanStatusCode::kError;
    s.status_message = "aborted";
  }
  add_content_events(in, s);
  out.push_back(std::move(s));
  if (detailed) add_detailed_children(in, *detailed, end, offset, ids, out);
}

}  // namespace llm
