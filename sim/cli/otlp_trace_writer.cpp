#include "sim/cli/otlp_trace_writer.h"

#include "core/engine_observer.h"
#include "core/rng.h"
#include "telemetry/otlp_json.h"
#include "telemetry/request_span.h"

namespace llm {
namespace {

constexpr uint64_t kIdStream = 0x6f746c70;  // "otlp": keeps span ids apart from other seed uses

}  // namespace

OtlpTraceWriter::OtlpTraceWriter(std::ostream& out, std::string model_name,
                                 int64_t start_time_unix_ns, uint64_t seed, bool detailed)
    : out_(out),
      model_name_(std::move(model_name)),
      start_time_unix_ns_(start_time_unix_ns),
      detailed_(detailed),
      ids_(hash_combine(seed, kIdStream)) {
  resource_.attributes = {{"service.name", std::string("llmsim")},
                          {"telemetry.sdk.name", std::string("llmserve")},
                          {"telemetry.sdk.language", std::string("cpp")}};
  resource_.scope_name = "llmsim";
}

EngineObserver* OtlpTraceWriter::add_engine() {
  recorders_.push_back(std::make_unique<EngineTraceRecorder>(
      [this](const Request& r, EngineTraceEvents&& events) { on_finished(r, std::move(events)); }));
  return recorders_.back().get();
}

void OtlpTraceWriter::on_finished(const Request& r, EngineTraceEvents&& events) {
  const std::string& key = r.parent_id.empty() ? r.external_id : r.parent_id;
  PendingRequest& p = pending_[key];
  if (r.child_index == 0) {
    p.first = r;
    p.events = std::move(events);
  }
  p.finish_reasons.resize(static_cast<size_t>(std::max(r.params.n, 1)));
  p.finish_reasons[static_cast<size_t>(r.child_index)] =
      refused_at_admission(r) ? "rejected" : finish_reason_name(r.finish_reason);
  p.completion_tokens += r.num_output_tokens;
  if (++p.finished < std::max(r.params.n, 1)) return;
  emit(p);
  pending_.erase(key);
}

void OtlpTraceWriter::emit(PendingRequest& p) {
  const Request& r = p.first;
  RequestSpanInput in;
  in.identity = start_span_identity(std::nullopt, "", ids_);
  in.operation = "chat";
  in.request_id = r.parent_id.empty() ? r.external_id : r.parent_id;
  in.request_model = model_name_;
  in.response_model = model_name_;
  if (r.params.max_tokens >= 0) in.max_tokens = r.params.max_tokens;
  in.temperature = r.params.temperature;
  in.top_p = r.params.top_p;
  in.n = std::max(r.params.n, 1);
  in.num_sequences = in.n;
  in.prompt_tokens = r.prompt_len;
  in.completion_tokens = p.completion_tokens;
  in.cached_tokens = std::max<int64_t>(r.num_cached_tokens, 0);
  in.finish_reasons = p.finish_reasons;
  in.timeline = r.timeline;
  if (refused_at_admission(r)) {
    in.error = true;
    in.error_message = "rejected: vLLM's frontend refuses this request with a 400";
  } else if (r.finish_reason == FinishReason::kError) {
    in.error = true;
    in.error_message = "the engine could not complete the request";
  } else if (r.finish_reason == FinishReason::kAbort) {
    in.aborted = true;
  }
  const size_t before = buffer_.size();
  build_request_spans(in, start_time_unix_ns_, detailed_ ? &p.events : nullptr, ids_, buffer_);
  num_spans_ += static_cast<int64_t>(buffer_.size() - before);
  if (buffer_.size() >= kSpansPerLine) flush_line();
}

void OtlpTraceWriter::flush_line() {
  if (buffer_.empty()) return;
  out_ << encode_otlp_json(resource_, buffer_) << '\n';
  buffer_.clear();
}

void OtlpTraceWriter::finish() {
  // Sequences still pending never finished (the replay ended): nothing to write for them.
  flush_line();
}

}  // namespace llm
