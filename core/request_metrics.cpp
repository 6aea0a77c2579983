#include "core/request_metrics.h"

namespace llm {
namespace {

bool known(Nanos t) { return t != kNoTime; }

std::optional<double> span_ms(Nanos from, Nanos to) {
  if (!known(from) || !known(to)) return std::nullopt;
  return nanos_to_ms(to - from);
}

std::optional<double> span_s(Nanos from, Nanos to) {
  if (!known(from) || !known(to)) return std::nullopt;
  return nanos_to_seconds(to - from);
}

}  // namespace

PerRequestMetrics compute_per_request_metrics(const Timeline& t, int64_t n) {
  PerRequestMetrics m;
  m.time_to_first_token_ms = span_ms(t.scheduled, t.first_token);
  m.generation_time_ms = span_ms(t.first_token, t.last_token);
  m.queue_time_ms = span_ms(t.queued, t.scheduled);
  if (n > 1 && m.generation_time_ms) {
    m.mean_itl_ms = *m.generation_time_ms / static_cast<double>(n - 1);
  }
  if (n == 0 && known(t.scheduled)) {
    m.tokens_per_second = 0.0;
  } else if (known(t.scheduled) && known(t.last_token) && t.last_token > t.scheduled) {
    m.tokens_per_second = static_cast<double>(n) / nanos_to_seconds(t.last_token - t.scheduled);
  }
  return m;
}

RequestIntervals compute_intervals(const Timeline& t, int64_t n) {
  RequestIntervals r;
  r.ttft_s = span_s(t.arrival, t.first_token);
  r.queue_s = span_s(t.queued, t.scheduled);
  r.prefill_s = span_s(t.scheduled, t.first_token);
  r.decode_s = span_s(t.first_token, t.last_token);
  r.inference_s = span_s(t.scheduled, t.last_token);
  r.e2e_s = span_s(t.arrival, t.finished);
  if (n > 1 && r.decode_s) r.tpot_s = *r.decode_s / static_cast<double>(n - 1);
  return r;
}

}  // namespace llm
