// What a finished sequence must show: REFUSAL, OUTPUT (its tokens and reason as expected), ABORT,
// STEP_FAILURE (error finishes exactly at a failed step's end), TIMING (its timeline, the API's
// per-request fields and the Prometheus intervals) and PREFIX_CACHE (its hit).
#include <cmath>
#include <optional>

#include "core/request_metrics.h"
#include "sim/dst/engine_checker.h"
#include "sim/dst/invariant_check.h"

namespace llm {

// A hit is whole blocks, never the last prompt token, none without caching; counted at the first
// admission, so exactly the scheduled sequences have one.
void EngineChecker::check_cached(const Request& r) const {
  const SchedulerConfig& c = run_.config.scheduler;
  const int64_t hit = r.num_cached_tokens;
  const bool ok = hit < 0 ? !known(r.timeline.scheduled)
                          : known(r.timeline.scheduled) && hit % c.block_size == 0 &&
                                hit <= r.prompt_len - 1 && (c.enable_prefix_caching || hit == 0);
  require_invariant(ok, "PREFIX_CACHE", [&] {
    return cat(r.external_id, " has ", hit, " cached of ", r.prompt_len, " prompt tokens and ",
               timeline_text(r.timeline));
  });
}

void EngineChecker::check_reason(const Request& r, const SeqRecord& rec) {
  const Expected& x = rec.expected;
  const FinishReason reason = r.finish_reason;
  const auto detail = [&] {
    return cat(rec.id, " ended with '", finish_reason_name(reason), "' after ", r.num_output_tokens,
               " tokens; expected '", finish_reason_name(x.reason), "' after ", x.outputs,
               (x.refused ? " (refused)" : ""), (rec.queued ? "" : ", never queued"));
  };
  require_invariant(rec.queued != x.refused, "REFUSAL", detail);
  if (!rec.queued) {
    require_invariant(reason == FinishReason::kError && r.num_output_tokens == 0, "REFUSAL",
                      detail);
  } else if (reason == FinishReason::kStop || reason == FinishReason::kLength) {
    require_invariant(reason == x.reason && r.num_output_tokens == x.outputs, "OUTPUT", detail);
  } else if (reason == FinishReason::kAbort) {
    require_invariant(run_.aborts_possible, "ABORT", detail);
    require_invariant(r.num_output_tokens < x.outputs, "OUTPUT", detail);
  } else {
    require_invariant(reason == FinishReason::kError && run_.failures_possible &&
                          r.timeline.finished == last_end_ && known(r.timeline.scheduled),
                      "STEP_FAILURE", detail);
    require_invariant(r.num_output_tokens < x.outputs, "OUTPUT", detail);
    ++step_errors_;
  }
}

void EngineChecker::check_timing(const Request& r, const SeqRecord& rec) const {
  const Timeline& t = r.timeline;
  const int64_t n = r.num_output_tokens;
  const auto at_most = [](Nanos a, Nanos b) { return !known(a) || !known(b) || a <= b; };
  bool ok = known(t.arrival) && known(t.finished) && t.arrival <= t.finished &&
            at_most(t.arrival, t.queued) && at_most(t.queued, t.scheduled) &&
            at_most(t.first_token, t.last_token) && at_most(t.last_token, t.finished) &&
            known(t.first_token) == (n > 0) && known(t.last_token) == (n > 0) &&
            (!known(t.first_token) || t.scheduled < t.first_token) &&
            (!known(t.scheduled) || known(t.queued)) && (known(t.scheduled) || n == 0) &&
            rec.last_token == t.last_token;
  switch (r.finish_reason) {
    case FinishReason::kStop:
    case FinishReason::kLength:
      ok = ok && n > 0 && t.last_token == t.finished;
      break;
    case FinishReason::kAbort:
      ok = ok && known(t.queued) && (known(t.scheduled) || t.num_preemptions == 0);
      break;
    default:  // error: refused (only arrival and finished), or a failed step (after its tokens)
      ok = ok && (rec.queued ? known(t.scheduled) && t.scheduled < t.finished &&
                                   (n == 0 || t.last_token < t.finished)
                             : !known(t.queued) && !known(t.scheduled));
  }
  require_invariant(ok, "TIMING", [&] {
    return cat(rec.id, " ('", finish_reason_name(r.finish_reason), "', ", n,
               " tokens): ", timeline_text(t));
  });
}

// The API's five fields and the Prometheus intervals, as docs/metrics.md defines them.
void EngineChecker::check_request_metrics(const Request& r) const {
  const Timeline& t = r.timeline;
  const int64_t n = r.num_output_tokens;
  const PerRequestMetrics m = compute_per_request_metrics(t, n);
  const RequestIntervals iv = compute_intervals(t, n);
  const auto same = [](const std::optional<double>& v, bool defined, double value) {
    return v.has_value() == defined && (!defined || *v == value);
  };
  const bool first = known(t.first_token);
  const bool ok = same(m.queue_time_ms, known(t.scheduled), nanos_to_ms(t.scheduled - t.queued)) &&
                  same(m.time_to_first_token_ms, first, nanos_to_ms(t.first_token - t.scheduled)) &&
                  same(m.generation_time_ms, first, nanos_to_ms(t.last_token - t.first_token)) &&
                  m.mean_itl_ms.has_value() == (n > 1) &&
                  (n > 0 || !known(t.scheduled) || m.tokens_per_second == 0.0) &&
                  same(iv.e2e_s, true, nanos_to_seconds(t.finished - t.arrival)) &&
                  (!iv.ttft_s || !iv.queue_s || *iv.ttft_s >= *iv.queue_s) &&
                  iv.tpot_s.has_value() == (n > 1);
  require_invariant(ok, "TIMING", [&] {
    return cat(r.external_id, ": per-request metrics disagree with ", timeline_text(t));
  });
}

void EngineChecker::check_step_failure(bool failed) {
  const bool ok = failed ? step_errors_ == static_cast<int64_t>(batch_size_) && step_tokens_ == 0
                         : step_errors_ == 0;
  require_invariant(ok, "STEP_FAILURE", [&] {
    return cat("engine ", engine_, " step ending at ", last_end_, " ns ",
               (failed ? "failed" : "succeeded"), ": ", step_errors_, " of ", batch_size_,
               " sequences ended with error, ", step_tokens_, " tokens");
  });
  step_errors_ = 0;
}

}  // namespace llm
