// Receives the engine's events: the single source for per-request records, Prometheus metrics and
// simulator reports, so they cannot disagree. Default methods ignore the event.
// Thread-safety: called on the engine thread only.
#pragma once

#include <cstdint>
#include <span>

#include "core/clock.h"
#include "core/kv_block_residency.h"
#include "core/request.h"
#include "core/scheduler.h"

namespace llm {

// A request that EngineCore refused in add_request (empty prompt, prompt of max_model_len tokens or
// more, max_tokens < 1: what vLLM's frontend rejects with a 400). It is finished with kError
// without ever being queued, and observed in no engine metric.
inline bool refused_at_admission(const Request& request) {
  return request.timeline.queued == kNoTime;
}

// The state after one engine step.
struct StepStats {
  Nanos start = 0;
  Nanos end = 0;
  int64_t scheduled_tokens = 0;  // prompt + generated tokens processed in the step
  int64_t num_seqs = 0;          // sequences in the batch
  int64_t num_preempted = 0;
  int64_t num_running = 0;  // after the step's outputs were applied (unfinished only)
  int64_t num_waiting = 0;
  // Finished sequences holding their seat through the next step (async scheduling): not in
  // num_running, but their KV blocks are not free yet.
  int64_t num_seat_holders = 0;
  int64_t free_blocks = 0;
  int64_t usable_blocks = 0;
  double kv_usage = 0;
};

// One output token of a step, for EngineObserver::on_tokens: its request (whose
// last_output_token it is) and the time since the request's previous token, kNoTime for its first.
struct TokenEvent {
  const Request* request = nullptr;
  Nanos itl_ns = kNoTime;
};

class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  // A request entered the waiting queue (its queued time is set).
  virtual void on_queued(const Request& request) {}
  // The scheduler decided a step (before it runs); `scheduler` shows the sets after the decision.
  virtual void on_scheduled(const SchedulerOutput& batch, const Scheduler& scheduler) {}
  // A request received an output token at `time`; itl_ns is time minus its previous token time,
  // or kNoTime for its first token.
  virtual void on_token(const Request& request, Nanos time, Nanos itl_ns) {}
  // A step's output tokens, in batch order, all at `time`: one call per step instead of one
  // on_token per sequence. It comes after the step's stop checks (a request in it may already be
  // finished, its on_finished still to come) and after its on_preemptions_reported. The default
  // passes each token to on_token in order; an observer on the hot path overrides it.
  virtual void on_tokens(std::span<const TokenEvent> tokens, Nanos time) {
    for (const TokenEvent& t : tokens) on_token(*t.request, time, t.itl_ns);
  }
  virtual void on_preempted(const Request& request) {}
  // The request reports output (a token, or a failed step's error) after `count` preemptions
  // since its previous output. vLLM counts vllm:num_preemptions_total here, not at the
  // preemption, so a request aborted while preempted adds nothing. Called before that output's
  // on_token (or on_finished).
  virtual void on_preemptions_reported(const Request& request, int32_t count) {}
  // The request left the engine; its timeline and counts are final. The object dies afterwards.
  virtual void on_finished(const Request& request) {}
  virtual void on_step(const StepStats& stats) {}
  // Requests left between steps (aborts): `state` holds the sets and KV usage after them
  // (scheduled_tokens and num_seqs are 0; it is not a step). Lets gauges fall back to idle values
  // when no step follows.
  virtual void on_state(const StepStats& state) {}
  // Sampled KV block residency observed while deciding a step (--kv-cache-metrics; never empty).
  virtual void on_kv_block_residency(const KvResidencyObservations& observations) {}
};

}  // namespace llm
