// The checks at each event of one engine: WORK_CONSERVATION (never idle with work, steps only at a
// step's end or a queueing, nothing queued or finished inside a step), the order of events in time
// (TIMING), CONSERVATION (queued at most once, finished exactly once), OUTPUT (each token the mock
// model's), PREEMPTION, LIVENESS, and the engine's end.
#include "sim/dst/engine_checker.h"

#include <algorithm>

#include "sim/dst/invariant_check.h"

namespace llm {
namespace {

// More steps than any case of llmsim dst takes by far: a run still going is stuck.
constexpr int64_t kMaxSteps = 2'000'000;

}  // namespace

SeqRecord& EngineChecker::seq(const Request& r) {
  const auto it = by_id_.find(r.id);
  if (it != by_id_.end()) return run_.seqs[it->second];
  const auto named = run_.by_external_id.find(r.external_id);
  require_invariant(named != run_.by_external_id.end(), "CONSERVATION", [&] {
    return cat("engine ", engine_, " serves ", r.external_id, ", not in the trace");
  });
  SeqRecord& rec = run_.seqs[named->second];
  require_invariant(rec.engine == engine_, "ROUTING", [&] {
    return cat(rec.id, " is served by engine ", engine_, ", routed to ", rec.engine);
  });
  by_id_.emplace(r.id, named->second);
  return rec;
}

// Every event of this engine passes here in time order: between steps, time may pass only when
// nothing is unfinished.
void EngineChecker::at_event(Nanos t, const char* what) {
  require_invariant(!known(last_event_) || t >= last_event_, "TIMING", [&] {
    return cat("engine ", engine_, ": ", what, " at ", t, " ns after an event at ", last_event_);
  });
  require_invariant(in_step_ || !known(last_event_) || t == last_event_ || live_ == 0,
                    "WORK_CONSERVATION", [&] {
                      return cat("engine ", engine_, " idle from ", last_event_, " to ", t,
                                 " ns with ", live_, " unfinished sequences (then: ", what, ")");
                    });
  last_event_ = t;
}

void EngineChecker::on_queued(const Request& r) {
  const Nanos t = r.timeline.queued;
  require_invariant(!in_step_, "WORK_CONSERVATION", [&] {
    return cat(r.external_id, " queued at ", t, " ns while a step is in flight");
  });
  at_event(t, "queued");
  SeqRecord& rec = seq(r);
  require_invariant(!rec.queued && rec.finishes == 0, "CONSERVATION",
                    [&] { return cat(rec.id, " queued again at ", t, " ns"); });
  require_invariant(r.timeline.arrival <= t, "TIMING", [&] {
    return cat(rec.id, " queued before it arrived: ", timeline_text(r.timeline));
  });
  rec.queued = true;
  ++live_;
  last_queued_ = t;
}

void EngineChecker::on_preempted(const Request& r) {
  SeqRecord& rec = seq(r);
  require_invariant(!in_step_ && rec.queued && rec.finishes == 0, "PREEMPTION", [&] {
    return cat(rec.id, " preempted while a step is in flight or after finishing");
  });
  ++rec.preemptions;
  ++preemptions_;
}

void EngineChecker::on_scheduled(const SchedulerOutput& b, const Scheduler& s) {
  const Nanos t = b.schedule_time;
  require_invariant(!in_step_, "WORK_CONSERVATION", [&] {
    return cat("engine ", engine_, " began a step at ", t, " ns inside another");
  });
  at_event(t, "step");
  require_invariant(t == last_end_ || t == last_queued_, "WORK_CONSERVATION", [&] {
    return cat("engine ", engine_, " began a step at ", t, " ns: neither a step end (", last_end_,
               ") nor a queueing (", last_queued_, ")");
  });
  in_step_ = true;
  // Async scheduling: a step begun as the previous one ended was decided when that one began.
  admit_until_ = steps_ > 0 && t == last_end_ ? step_start_ : INT64_MAX;
  step_start_ = t;
  // Seat holders (async scheduling) in the batch have finished already: a failure spares them.
  batch_size_ =
      static_cast<size_t>(std::count_if(b.seqs.begin(), b.seqs.end(), [](const ScheduledSeq& q) {
        return !q.request->is_finished();
      }));
  step_tokens_ = 0;
  step_errors_ = 0;
  check_budget(b, s);
  check_admission(b, s);
  for (const Request* r : b.preempted) {
    require_invariant(
        r->state == RequestState::kWaiting && r->num_computed_tokens == 0 && r->block_ids.empty(),
        "PREEMPTION", [&] { return cat(r->external_id, " preempted but kept its KV"); });
  }
}

void EngineChecker::on_token(const Request& r, Nanos time, Nanos itl) {
  SeqRecord& rec = seq(r);
  require_invariant(in_step_ && rec.finishes == 0, "OUTPUT",
                    [&] { return cat(rec.id, " got a token outside a step or after finishing"); });
  ++rec.tokens;
  ++step_tokens_;
  require_invariant(r.num_output_tokens == rec.tokens, "OUTPUT", [&] {
    return cat(rec.id, " has ", r.num_output_tokens, " tokens, ", rec.tokens, " reported");
  });
  const int64_t index = rec.tokens - 1;
  const bool last = r.scripted_output_len > 0 && index + 1 >= r.scripted_output_len;
  const int32_t want = last ? run_.model.eos_token_id() : run_.model.token_for(r, index);
  require_invariant(r.last_output_token == want, "OUTPUT", [&] {
    return cat(rec.id, " token ", index, " is ", r.last_output_token, ", the model's is ", want);
  });
  const bool ok = rec.tokens == 1 ? itl == kNoTime : itl > 0 && itl == time - rec.last_token;
  require_invariant(ok, "TIMING", [&] {
    return cat(rec.id, " token ", rec.tokens, " at ", time, " ns has ITL ", itl,
               " after a token at ", rec.last_token);
  });
  rec.last_token = time;
}

void EngineChecker::on_finished(const Request& r) {
  SeqRecord& rec = seq(r);
  require_invariant(!in_step_, "WORK_CONSERVATION",
                    [&] { return cat(rec.id, " finished while a step is in flight"); });
  at_event(r.timeline.finished, "finish");
  ++rec.finishes;
  require_invariant(rec.finishes == 1, "CONSERVATION",
                    [&] { return cat(rec.id, " finished twice"); });
  if (rec.queued) --live_;
  --run_.outstanding[engine_];
  check_reason(r, rec);
  check_timing(r, rec);
  check_request_metrics(r);
  require_invariant(r.num_output_tokens == rec.tokens, "OUTPUT", [&] {
    return cat(rec.id, " finished with ", r.num_output_tokens, " tokens, ", rec.tokens,
               " reported");
  });
  require_invariant(r.timeline.num_preemptions == rec.preemptions, "PREEMPTION", [&] {
    return cat(rec.id, " counts ", r.timeline.num_preemptions, " preemptions, ", rec.preemptions,
               " reported");
  });
  check_cached(r);
  const bool admitted = r.num_cached_tokens >= 0;
  if (admitted) {
    admitted_prompts_ += r.prompt_len;
    admitted_hits_ += r.num_cached_tokens;
  }
  by_id_.erase(r.id);
}

void EngineChecker::on_step(const StepStats& st) {
  require_invariant(in_step_ && st.start == step_start_ && st.end > st.start, "TIMING", [&] {
    return cat("engine ", engine_, " step from ", st.start, " to ", st.end, " ns (begun at ",
               step_start_, ")");
  });
  require_invariant(st.free_blocks >= 0 && st.free_blocks <= st.usable_blocks, "KV_BLOCKS", [&] {
    return cat("engine ", engine_, ": ", st.free_blocks, " free of ", st.usable_blocks);
  });
  ++steps_;
  require_invariant(steps_ <= kMaxSteps, "LIVENESS", [&] {
    return cat("engine ", engine_, " is still busy after ", kMaxSteps, " steps");
  });
  in_step_ = false;
  last_end_ = st.end;
  last_event_ = st.end;
  last_state_ = st;
  have_state_ = true;
}

void EngineChecker::on_state(const StepStats& st) {
  require_invariant(!in_step_ && st.num_running + st.num_waiting == live_, "CONSERVATION", [&] {
    return cat("engine ", engine_, " reports ", st.num_running, " running and ", st.num_waiting,
               " waiting; ", live_, " are queued and unfinished");
  });
  check_idle_blocks(st);
  last_state_ = st;
  have_state_ = true;
}

void EngineChecker::after_step(const EngineCore& engine) {
  const Scheduler& s = engine.scheduler();
  check_step_failure(engine.last_step_failed());
  check_sets(s);
  check_kv(s);
  check_counters(s);
}

void EngineChecker::check_end(const EngineTotals& totals) const {
  require_invariant(!in_step_ && live_ == 0 && run_.outstanding[engine_] == 0, "CONSERVATION", [&] {
    return cat("engine ", engine_, " ends with ", live_, " unfinished sequences",
               (in_step_ ? " and a step in flight" : ""));
  });
  if (have_state_) check_idle_blocks(last_state_);
  require_invariant(totals.num_preemptions == preemptions_, "PREEMPTION", [&] {
    return cat("engine ", engine_, " totals ", totals.num_preemptions, " preemptions, ",
               preemptions_, " reported");
  });
  const bool caching = run_.config.scheduler.enable_prefix_caching;
  require_invariant(totals.prefix_queries == (caching ? admitted_prompts_ : 0) &&
                        totals.prefix_hits == (caching ? admitted_hits_ : 0),
                    "PREFIX_CACHE", [&] {
                      return cat("engine ", engine_, " totals ", totals.prefix_queries,
                                 " queried, ", totals.prefix_hits, " hit; admitted ",
                                 admitted_prompts_, " and ", admitted_hits_);
                    });
}

}  // namespace llm
