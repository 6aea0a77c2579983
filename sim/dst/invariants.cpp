#include "sim/dst/invariants.h"

#include <prometheus/registry.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "backends/sim/sim_backend.h"
#include "core/ceil_div.h"
#include "core/engine_core.h"
#include "core/observer_tee.h"
#include "core/request_metrics.h"
#include "core/vllm_metrics.h"
#include "sim/replay/replay_report.h"

namespace llm {
namespace {

// Text from pieces: cat("engine ", 2, " at ", t).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

// Throws the violation when `ok` is false; `detail` builds its text only then.
template <typename Detail>
void require_invariant(bool ok, const char* invariant, Detail&& detail) {
  if (!ok) throw InvariantViolation(invariant, detail());
}

// More steps than any case of llmsim dst takes by far: a run still going is stuck.
constexpr int64_t kMaxSteps = 2'000'000;

bool known(Nanos t) { return t != kNoTime; }

std::string timeline_text(const Timeline& t) {
  return cat("arrival ", t.arrival, " queued ", t.queued, " scheduled ", t.scheduled, " first ",
             t.first_token, " last ", t.last_token, " finished ", t.finished, " ns");
}

}  // namespace

InvariantViolation::InvariantViolation(std::string invariant, std::string detail)
    : std::logic_error(invariant + ": " + detail),
      invariant_(std::move(invariant)),
      detail_(std::move(detail)) {}

// What the mock GPU does with one sequence when nothing faults.
struct Expected {
  bool refused = false;  // the engine must finish it with `error` at once
  int64_t outputs = 0;
  FinishReason reason = FinishReason::kNone;
};

Expected expected_for(const TraceRequest& e, int64_t max_model_len) {
  Expected x;
  const int64_t room = std::max<int64_t>(max_model_len - e.prompt_len, 0);
  const int64_t max_tokens = e.max_tokens >= 0 ? e.max_tokens : room;
  x.refused = e.prompt_len < 1 || e.prompt_len >= max_model_len || max_tokens < 1;
  if (x.refused) return x;
  const int64_t cap = std::min(max_tokens, room);
  x.outputs = e.output_len > 0 ? std::min(e.output_len, cap) : cap;
  // The model's EOS is checked before the length limits (vLLM's order): a sequence whose natural
  // end falls on its last allowed token stops.
  const bool natural_end = e.output_len > 0 && e.output_len <= cap;
  x.reason = natural_end ? FinishReason::kStop : FinishReason::kLength;
  return x;
}

struct SeqRecord {
  std::string id;
  size_t request = 0;
  Expected expected;
  size_t engine = SIZE_MAX;  // once routed
  bool queued = false;
  int finishes = 0;
  int64_t tokens = 0;
  int64_t preemptions = 0;
  Nanos last_token = kNoTime;
  bool scheduled = false;  // admitted at least once
};

// What the engines' checkers share: the sequences and the routing oracle.
struct CheckedRun {
  CheckedRun(const Trace& trace, const ReplayConfig& config);
  void add_sequences(size_t request);
  void on_route(size_t request, size_t engine);
  size_t expected_engine(size_t request) const;
  void check_end(const ReplayTotals& totals) const;

  const Trace& trace;
  const ReplayConfig& config;
  SimBackend model;  // what the engines' mock GPUs sample
  size_t num_engines;
  bool aborts_possible;
  bool failures_possible;
  std::vector<SeqRecord> seqs;
  std::vector<size_t> first_seq;  // per trace request
  std::unordered_map<std::string, size_t> by_external_id;
  std::vector<int64_t> outstanding;  // per engine: sequences routed to it and not finished
  std::vector<int64_t> routed_seqs;  // per engine
  size_t routed = 0;                 // trace requests routed so far
};

CheckedRun::CheckedRun(const Trace& t, const ReplayConfig& c)
    : trace(t),
      config(c),
      model(c.deployment, c.seed),
      num_engines(static_cast<size_t>(std::max(c.data_parallel_size, 1))),
      aborts_possible(!c.faults.aborts.empty() || c.faults.loop_abort_probability > 0),
      failures_possible(c.faults.backend.failure_probability > 0),
      outstanding(num_engines, 0),
      routed_seqs(num_engines, 0) {
  for (size_t k = 0; k < t.requests.size(); ++k) add_sequences(k);
}

void CheckedRun::add_sequences(size_t k) {
  const TraceRequest& e = trace.requests[k];
  const std::string parent = e.id.empty() ? std::to_string(k) : e.id;
  const int32_t n = std::max<int32_t>(e.n, 1);
  first_seq.push_back(seqs.size());
  for (int32_t child = 0; child < n; ++child) {
    SeqRecord rec;
    rec.id = n > 1 ? std::to_string(child) + "_" + parent : parent;
    rec.request = k;
    rec.expected = expected_for(e, config.scheduler.max_model_len);
    require_invariant(by_external_id.emplace(rec.id, seqs.size()).second, "CONSERVATION",
                      [&] { return cat("two sequences are named ", rec.id); });
    seqs.push_back(std::move(rec));
  }
}

size_t CheckedRun::expected_engine(size_t k) const {
  if (config.routing == RoutingPolicy::kRoundRobin) return k % num_engines;
  const auto least = std::min_element(outstanding.begin(), outstanding.end());
  return static_cast<size_t>(least - outstanding.begin());
}

void CheckedRun::on_route(size_t k, size_t engine) {
  require_invariant(k == routed && engine < num_engines, "ROUTING", [&] {
    return cat("request ", k, " routed to engine ", engine, " after ", routed);
  });
  if (num_engines > 1 && config.routing != RoutingPolicy::kPrefixAffinity) {
    const size_t want = expected_engine(k);
    require_invariant(engine == want, "ROUTING", [&] {
      return cat(routing_policy_name(config.routing), " sent request ", trace.requests[k].id,
                 " to engine ", engine, ", not ", want);
    });
  }
  const size_t end = k + 1 < first_seq.size() ? first_seq[k + 1] : seqs.size();
  for (size_t s = first_seq[k]; s < end; ++s) seqs[s].engine = engine;
  outstanding[engine] += static_cast<int64_t>(end - first_seq[k]);
  routed_seqs[engine] += static_cast<int64_t>(end - first_seq[k]);
  ++routed;
}

void CheckedRun::check_end(const ReplayTotals& totals) const {
  for (const SeqRecord& rec : seqs) {
    require_invariant(rec.finishes == 1 && rec.engine != SIZE_MAX, "CONSERVATION", [&] {
      return cat(rec.id, " was routed ", rec.engine != SIZE_MAX, " and finished ", rec.finishes,
                 " times by the end");
    });
  }
  require_invariant(totals.engines.size() == num_engines, "CONSERVATION",
                    [&] { return cat(totals.engines.size(), " engine totals for ", num_engines); });
  for (size_t e = 0; e < num_engines; ++e) {
    require_invariant(totals.engines[e].num_sequences == routed_seqs[e], "CONSERVATION", [&] {
      return cat("engine ", e, " counts ", totals.engines[e].num_sequences, " sequences, ",
                 routed_seqs[e], " were routed to it");
    });
  }
}

// One engine's observer: the event-level checks, the after-step checks and its end checks.
class EngineChecker final : public EngineObserver {
 public:
  EngineChecker(CheckedRun& run, size_t engine) : run_(run), engine_(engine) {}

  void on_queued(const Request& r) override;
  void on_scheduled(const SchedulerOutput& batch, const Scheduler& s) override;
  void on_token(const Request& r, Nanos time, Nanos itl) override;
  void on_preempted(const Request& r) override;
  void on_finished(const Request& r) override;
  void on_step(const StepStats& stats) override;
  void on_state(const StepStats& state) override;

  void after_step(const EngineCore& engine);  // ReplayHooks::on_step
  void check_end(const EngineTotals& totals) const;

 private:
  SeqRecord& seq(const Request& r);
  void at_event(Nanos t, const char* what);
  void check_budget(const SchedulerOutput& b, const Scheduler& s) const;
  void check_admission(const SchedulerOutput& b, const Scheduler& s);
  void check_admission_order(const SchedulerOutput& b, const Scheduler& s);
  void check_cached(const Request& r) const;
  void check_reason(const Request& r, const SeqRecord& rec);
  void check_timing(const Request& r, const SeqRecord& rec) const;
  void check_request_metrics(const Request& r) const;
  void check_step_failure(bool failed);
  void check_sets(const Scheduler& s) const;
  void check_kv(const Scheduler& s);
  void count_holders(const Scheduler& s);
  void check_counters(const Scheduler& s) const;
  void check_idle_blocks(const StepStats& state) const;

  CheckedRun& run_;
  size_t engine_;
  std::unordered_map<uint64_t, size_t> by_id_;  // engine id -> sequence, while unfinished
  bool in_step_ = false;
  Nanos step_start_ = kNoTime;
  Nanos admit_until_ = INT64_MAX;  // async scheduling: the latest queueing this step could see
  Nanos last_end_ = kNoTime;       // of the latest step
  Nanos last_event_ = kNoTime;     // the latest event's time
  Nanos last_queued_ = kNoTime;    // the latest queueing
  int64_t live_ = 0;               // queued and not finished
  size_t batch_size_ = 0;
  int64_t step_tokens_ = 0;
  int64_t step_errors_ = 0;  // queued sequences finished with `error` at the latest step's end
  int64_t preemptions_ = 0;
  int64_t steps_ = 0;
  int64_t admitted_prompts_ = 0;  // prompt tokens of finished sequences that were admitted
  int64_t admitted_hits_ = 0;     // their prefix-cache hits
  StepStats last_state_;
  bool have_state_ = false;
  std::vector<int32_t> refs_;  // scratch of check_kv
  std::vector<int32_t> hits_;  // scratch of check_admission
  std::vector<const Request*> batch_;
};

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

void EngineChecker::check_budget(const SchedulerOutput& b, const Scheduler& s) const {
  const SchedulerConfig& c = run_.config.scheduler;
  require_invariant(b.total_tokens <= c.max_num_batched_tokens && !b.seqs.empty(), "BUDGET", [&] {
    return cat("a step of ", b.seqs.size(), " sequences, ", b.total_tokens, " tokens; budget ",
               c.max_num_batched_tokens);
  });
  require_invariant(s.num_running() <= static_cast<size_t>(c.max_num_seqs), "BUDGET", [&] {
    return cat(s.num_running(), " running, max_num_seqs ", c.max_num_seqs);
  });
  int64_t sum = 0;
  const bool whole = !c.enable_chunked_prefill && c.long_prefill_token_threshold == 0;
  for (const ScheduledSeq& q : b.seqs) {
    const Request& r = *q.request;
    const int64_t end = q.num_computed_before + q.num_new_tokens;
    // Async scheduling: a sequence that stopped on a sampled token runs one more decode token.
    const bool live = r.state == RequestState::kRunning ||
                      (c.async_scheduling && r.is_finished() &&
                       r.finish_reason == FinishReason::kStop && q.num_new_tokens == 1);
    const bool ok =
        q.num_new_tokens > 0 && end <= c.max_model_len - 1 && live && (q.samples || !whole) &&
        (c.long_prefill_token_threshold == 0 || q.num_new_tokens <= c.long_prefill_token_threshold);
    require_invariant(ok, "BUDGET", [&] {
      return cat(r.external_id, ": ", q.num_new_tokens, " tokens after ", q.num_computed_before,
                 (q.samples ? ", sampling" : ", not sampling"), ", state ",
                 static_cast<int>(r.state));
    });
    sum += q.num_new_tokens;
  }
  require_invariant(sum == b.total_tokens, "BUDGET", [&] {
    return cat("the step's tokens add up to ", sum, ", not ", b.total_tokens);
  });
}

// The step stopped admitting only for a reason the rules allow.
void EngineChecker::check_admission(const SchedulerOutput& b, const Scheduler& s) {
  const SchedulerConfig& c = run_.config.scheduler;
  batch_.clear();
  for (const ScheduledSeq& q : b.seqs) batch_.push_back(q.request);
  std::sort(batch_.begin(), batch_.end());
  require_invariant(std::adjacent_find(batch_.begin(), batch_.end()) == batch_.end(), "BUDGET",
                    [&] { return std::string("a sequence is twice in one step"); });
  check_admission_order(b, s);
  if (s.waiting().empty() || !b.preempted.empty() || b.total_tokens >= c.max_num_batched_tokens ||
      s.num_running() >= static_cast<size_t>(c.max_num_seqs)) {
    return;
  }
  const Request* head = s.waiting().front();
  if (c.async_scheduling && head->timeline.queued > admit_until_) return;  // not yet seen
  const int64_t hit_tokens = s.kv().peek_cached_prefix(*head, hits_);
  int64_t wanted = head->num_tokens() - head->num_computed_tokens - hit_tokens;
  // vLLM caps at the threshold before comparing with the budget.
  if (c.long_prefill_token_threshold > 0) {
    wanted = std::min(wanted, c.long_prefill_token_threshold);
  }
  const bool over_budget =
      !c.enable_chunked_prefill && wanted > c.max_num_batched_tokens - b.total_tokens;
  require_invariant(over_budget || !s.kv().can_admit(*head, hits_), "ADMISSION", [&] {
    return cat(head->external_id, " heads the queue, fits and has budget, but was not admitted");
  });
}

// The step's admissions (the batch's last num_admitted sequences) came from the queue's head: under
// FCFS preempted sequences first, then new ones in queueing order (engine ids); under the priority
// policy in (priority, arrival, request-id string) order, as vLLM orders them. So none of those
// still waiting comes before them.
void EngineChecker::check_admission_order(const SchedulerOutput& b, const Scheduler& s) {
  const auto key = [](const Request* r) {
    return std::tie(r->priority, r->timeline.arrival, r->external_id, r->id);
  };
  const bool fcfs = run_.config.scheduler.policy == SchedulingPolicy::kFcfs;
  const Request* last_new = nullptr;  // FCFS: the newest admitted sequence never scheduled before
  const Request* last = nullptr;      // priority: the admitted sequence with the largest key
  for (size_t i = b.seqs.size() - static_cast<size_t>(b.num_admitted); i < b.seqs.size(); ++i) {
    const Request* r = b.seqs[i].request;
    SeqRecord& rec = seq(*r);
    if (!rec.scheduled && (!last_new || r->id > last_new->id)) last_new = r;
    if (!last || key(r) > key(last)) last = r;
    rec.scheduled = true;
  }
  if (!last) return;
  s.waiting().for_each([&](const Request* w) {
    const bool resumed = known(w->timeline.scheduled);
    const bool ok = fcfs ? !last_new || (!resumed && w->id > last_new->id) : key(w) >= key(last);
    require_invariant(ok, "ADMISSION", [&] {
      return cat(w->external_id, " still waits, ahead of ", (fcfs ? last_new : last)->external_id,
                 " which was admitted (", (fcfs ? "fcfs" : "priority"), ")");
    });
  });
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

void EngineChecker::check_idle_blocks(const StepStats& st) const {
  if (st.num_running + st.num_waiting + st.num_seat_holders > 0) return;
  require_invariant(st.free_blocks == st.usable_blocks, "KV_BLOCKS", [&] {
    return cat("engine ", engine_, " has nothing unfinished but only ", st.free_blocks, " of ",
               st.usable_blocks, " blocks free");
  });
}

void EngineChecker::after_step(const EngineCore& engine) {
  const Scheduler& s = engine.scheduler();
  check_step_failure(engine.last_step_failed());
  check_sets(s);
  check_kv(s);
  check_counters(s);
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

// Conservation on this engine: what was routed here and has not finished is queued (the driver
// has just applied what waited for the step).
void EngineChecker::check_sets(const Scheduler& s) const {
  // Seat holders (async scheduling) are finished: they count as neither queued nor unfinished.
  int64_t holders = 0;
  for (const Request* r : s.running()) holders += r->is_finished();
  const int64_t queued = static_cast<int64_t>(s.num_running() + s.num_waiting()) - holders;
  require_invariant(queued == live_ && live_ == run_.outstanding[engine_], "CONSERVATION", [&] {
    return cat("engine ", engine_, ": ", s.num_running(), " running + ", s.num_waiting(),
               " waiting, ", live_, " queued and unfinished, ", run_.outstanding[engine_],
               " routed and unfinished");
  });
  for (const Request* r : s.running()) {
    // Under async scheduling a sequence that stopped on a sampled token holds its seat one step.
    const bool seat_holder = run_.config.scheduler.async_scheduling && r->is_finished() &&
                             r->finish_reason == FinishReason::kStop;
    require_invariant(r->state == RequestState::kRunning || seat_holder, "CONSERVATION", [&] {
      return cat(r->external_id, " is in the running set in state ", int(r->state));
    });
  }
  s.waiting().for_each([&](const Request* r) {
    require_invariant(r->state == RequestState::kWaiting, "CONSERVATION", [&] {
      return cat(r->external_id, " is in the waiting queue in state ", int(r->state));
    });
  });
}

void EngineChecker::check_kv(const Scheduler& s) {
  count_holders(s);
  const BlockPool& pool = s.kv().pool();
  int32_t free = 0;
  for (int32_t b = 1; b < pool.num_blocks(); ++b) {
    const int32_t held = refs_[static_cast<size_t>(b)];
    require_invariant(pool.ref_count(b) == held, "KV_BLOCKS", [&] {
      return cat("engine ", engine_, " block ", b, " has ", pool.ref_count(b),
                 " references, held by ", held, " unfinished sequences");
    });
    free += held == 0 ? 1 : 0;
  }
  require_invariant(free == pool.num_free(), "KV_BLOCKS", [&] {
    return cat("engine ", engine_, ": ", pool.num_free(), " free blocks, ", free, " unheld");
  });
}

// refs_[b]: how many unfinished sequences hold block b.
void EngineChecker::count_holders(const Scheduler& s) {
  const BlockPool& pool = s.kv().pool();
  const int64_t block_size = s.kv().block_size();
  refs_.assign(static_cast<size_t>(pool.num_blocks()), 0);
  for (const Request* r : s.running()) {
    const int64_t want = ceil_div(r->num_computed_tokens, block_size);
    require_invariant(static_cast<int64_t>(r->block_ids.size()) == want, "KV_BLOCKS", [&] {
      return cat(r->external_id, " holds ", r->block_ids.size(), " blocks for ",
                 r->num_computed_tokens, " computed tokens");
    });
    for (int32_t b : r->block_ids) {
      require_invariant(b > 0 && b < pool.num_blocks(), "KV_BLOCKS",
                        [&] { return cat(r->external_id, " holds block ", b); });
      ++refs_[static_cast<size_t>(b)];
    }
  }
  s.waiting().for_each([&](const Request* r) {
    require_invariant(r->block_ids.empty() && r->num_computed_tokens == 0, "KV_BLOCKS", [&] {
      return cat(r->external_id, " waits holding ", r->block_ids.size(), " blocks");
    });
  });
}

// Preemption and prefix-cache counters against the sequences (finished and unfinished).
void EngineChecker::check_counters(const Scheduler& s) const {
  require_invariant(s.num_preemptions() == preemptions_, "PREEMPTION", [&] {
    return cat("engine ", engine_, " counts ", s.num_preemptions(), " preemptions, ", preemptions_,
               " reported");
  });
  int64_t prompts = admitted_prompts_;
  int64_t hits = admitted_hits_;
  const auto add = [&](const Request* r) {
    if (r->num_cached_tokens < 0) return;
    prompts += r->prompt_len;
    hits += r->num_cached_tokens;
  };
  for (const Request* r : s.running()) {
    if (!r->is_finished()) add(r);  // a seat holder was counted when it finished
  }
  s.waiting().for_each(add);
  const bool caching = s.kv().prefix_caching();
  const PrefixCacheCounters& k = s.kv().counters();
  require_invariant(
      k.queries == (caching ? prompts : 0) && k.hits == (caching ? hits : 0), "PREFIX_CACHE", [&] {
        return cat("engine ", engine_, " counts ", k.queries, " queried and ", k.hits,
                   " hit tokens; the admitted sequences have ", prompts, " and ", hits);
      });
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

// The per-request file and vLLM's metrics of all engines, for the METRICS check.
struct FileSums;

struct MetricsTap {
  MetricsTap(const ReplayConfig& config, const std::vector<EngineChecker*>& checkers);
  void check(const FileSums& sums, bool caching);
  void check_histograms(const FileSums& sums);

  std::ostringstream jsonl;
  ReplayReport report{&jsonl};
  prometheus::Registry registry;
  VllmMetricFamilies families;
  std::vector<std::unique_ptr<EngineMetrics>> metrics;
  std::vector<std::unique_ptr<ObserverTee>> tees;
};

MetricsTap::MetricsTap(const ReplayConfig& config, const std::vector<EngineChecker*>& checkers)
    : families(registry, config.scheduler.max_model_len) {
  const CacheConfigInfo cache = cache_config_info(config.scheduler, "auto", 0.92);
  for (size_t i = 0; i < checkers.size(); ++i) {
    metrics.push_back(std::make_unique<EngineMetrics>(families, "dst", static_cast<int>(i), cache));
    tees.push_back(std::make_unique<ObserverTee>(
        std::vector<EngineObserver*>{checkers[i], &report, metrics.back().get()}));
  }
}

// Sums of the per-request file.
struct FileSums {
  std::map<std::string, int64_t> reasons;
  int64_t lines = 0, prompt = 0, prompt_with_token = 0, completion = 0, preemptions = 0;
  int64_t admitted_prompt = 0, cached = 0, with_token = 0, multi_token = 0, later_tokens = 0;
  int64_t scheduled = 0;
  int64_t observed = 0;  // lines of requests the engine metrics observe (all but rejected ones)
  int64_t cached_with_token = 0;  // prompt tokens found cached, of requests that made a token
  int64_t computed = 0;           // prompt minus cached tokens, every observed request
  bool aborts = false;            // some request was aborted (its preemptions may go unreported)
};

namespace {

FileSums sum_file(const std::string& jsonl) {
  FileSums s;
  std::istringstream in(jsonl);
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const int64_t c = j.at("completion_tokens").get<int64_t>();
    const int64_t p = j.at("prompt_tokens").get<int64_t>();
    const bool scheduled = !j.at("queue_time_ms").is_null();
    ++s.lines;
    const std::string reason = j.at("finish_reason").get<std::string>();
    ++s.reasons[reason];
    if (reason == "rejected") continue;  // vLLM's frontend refuses it: in no engine metric
    ++s.observed;
    s.prompt += p;
    s.completion += c;
    s.preemptions += j.at("num_preemptions").get<int64_t>();
    s.aborts = s.aborts || reason == "abort";
    s.prompt_with_token += c > 0 ? p : 0;
    s.admitted_prompt += scheduled ? p : 0;
    const int64_t cached = j.at("cached_tokens").get<int64_t>();
    s.cached += cached;
    s.cached_with_token += c > 0 ? cached : 0;
    s.computed += p - cached;
    s.scheduled += scheduled ? 1 : 0;
    s.with_token += c > 0 ? 1 : 0;
    s.multi_token += c > 1 ? 1 : 0;
    s.later_tokens += std::max<int64_t>(c - 1, 0);
  }
  return s;
}

// A family's value summed over its series: counters' and gauges' values, or histograms' sample
// counts (or sums). `label`/`value` select series (empty: all).
double family_total(prometheus::Collectable& family, bool histogram_sum = false,
                    const std::string& label = "", const std::string& value = "") {
  double total = 0;
  for (const prometheus::MetricFamily& f : family.Collect()) {
    for (const prometheus::ClientMetric& m : f.metric) {
      const bool selected =
          label.empty() || std::any_of(m.label.begin(), m.label.end(), [&](const auto& l) {
            return l.name == label && l.value == value;
          });
      if (!selected) continue;
      if (f.type == prometheus::MetricType::Histogram) {
        total +=
            histogram_sum ? m.histogram.sample_sum : static_cast<double>(m.histogram.sample_count);
      } else if (f.type == prometheus::MetricType::Gauge) {
        total += m.gauge.value;
      } else {
        total += m.counter.value;
      }
    }
  }
  return total;
}

void expect(const char* what, double metric, int64_t file) {
  require_invariant(metric == static_cast<double>(file), "METRICS", [&] {
    return cat(what, " is ", metric, " in the metrics, ", file, " in the per-request file");
  });
}

}  // namespace

void MetricsTap::check(const FileSums& s, bool caching) {
  for (auto& m : metrics) m->flush();
  VllmMetricFamilies& f = families;
  for (const char* reason : {"stop", "length", "abort", "error"}) {
    expect(reason, family_total(f.request_success, false, "finished_reason", reason),
           s.reasons.count(reason) ? s.reasons.at(reason) : 0);
  }
  check_histograms(s);
  // At the end every engine is idle, and its gauges say so.
  expect("num_requests_running", family_total(f.running), 0);
  expect("num_requests_waiting", family_total(f.waiting), 0);
  expect("kv_cache_usage_perc", family_total(f.kv_usage), 0);
  expect("generation_tokens_total", family_total(f.generation_tokens), s.completion);
  // By source: what was not found cached was computed, and the two add up to the prompts.
  expect("prompt_tokens_by_source_total", family_total(f.prompt_tokens_by_source),
         s.prompt_with_token);
  expect("prompt_tokens_by_source_total{source=\"local_cache_hit\"}",
         family_total(f.prompt_tokens_by_source, false, "source", "local_cache_hit"),
         s.cached_with_token);
  expect("prompt_tokens_cached_total", family_total(f.prompt_tokens_cached), s.cached_with_token);
  // Each step with outputs adds its tokens and the computed prompts whose prefill ended in it.
  expect("iteration_tokens_total_sum", family_total(f.iteration_tokens, true),
         s.prompt_with_token - s.cached_with_token + s.completion);
  expect("prompt_tokens_total", family_total(f.prompt_tokens), s.prompt_with_token);
  // Counted when a preempted request next reports output: a request aborted while preempted
  // reports none, so with aborts the counter may fall short of the per-request sum.
  if (s.aborts) {
    require_invariant(
        family_total(f.preemptions) <= static_cast<double>(s.preemptions), "METRICS", [&] {
          return cat("num_preemptions_total is ", family_total(f.preemptions), ", above the ",
                     s.preemptions, " preemptions of the per-request file");
        });
  } else {
    expect("num_preemptions_total", family_total(f.preemptions), s.preemptions);
  }
  expect("prefix_cache_queries_total", family_total(f.prefix_queries),
         caching ? s.admitted_prompt : 0);
  expect("prefix_cache_hits_total", family_total(f.prefix_hits), caching ? s.cached : 0);
}

void MetricsTap::check_histograms(const FileSums& s) {
  VllmMetricFamilies& f = families;
  expect("time_to_first_token_seconds_count", family_total(f.ttft), s.with_token);
  expect("inter_token_latency_seconds_count", family_total(f.itl), s.later_tokens);
  expect("request_time_per_output_token_seconds_count", family_total(f.tpot), s.with_token);
  expect("e2e_request_latency_seconds_count", family_total(f.e2e), s.with_token);
  expect("request_queue_time_seconds_count", family_total(f.queue), s.scheduled);
  expect("request_prompt_tokens_count", family_total(f.prompt_len), s.observed);
  expect("request_prefill_kv_computed_tokens_sum", family_total(f.prefill_kv_computed, true),
         s.computed);
  expect("request_num_preemptions_sum", family_total(f.num_preemptions_per_request, true),
         s.preemptions);
  expect("request_num_preemptions_count", family_total(f.num_preemptions_per_request), s.observed);
  expect("request_prompt_tokens_sum", family_total(f.prompt_len, true), s.prompt);
  expect("request_generation_tokens_sum", family_total(f.generation_len, true), s.completion);
}

ReplayChecker::ReplayChecker(const Trace& trace, const ReplayConfig& config, bool with_metrics)
    : run_(std::make_unique<CheckedRun>(trace, config)) {
  std::vector<EngineChecker*> checkers;
  for (size_t i = 0; i < run_->num_engines; ++i) {
    engines_.push_back(std::make_unique<EngineChecker>(*run_, i));
    checkers.push_back(engines_.back().get());
  }
  if (with_metrics) {
    metrics_ = std::make_unique<MetricsTap>(config, checkers);
    for (auto& tee : metrics_->tees) observers_.push_back(tee.get());
  } else {
    observers_.assign(checkers.begin(), checkers.end());
  }
}

ReplayChecker::~ReplayChecker() = default;

ReplayHooks ReplayChecker::hooks() {
  ReplayHooks hooks;
  hooks.on_step = [this](size_t i, const EngineCore& engine) { engines_[i]->after_step(engine); };
  hooks.on_route = [this](size_t request, size_t engine) { run_->on_route(request, engine); };
  return hooks;
}

void ReplayChecker::check_end(const ReplayTotals& totals) {
  run_->check_end(totals);
  for (size_t i = 0; i < engines_.size(); ++i) engines_[i]->check_end(totals.engines[i]);
  if (!metrics_) return;
  const FileSums s = sum_file(metrics_->jsonl.str());
  require_invariant(s.lines == static_cast<int64_t>(run_->seqs.size()), "METRICS", [&] {
    return cat("the per-request file has ", s.lines, " lines for ", run_->seqs.size(),
               " sequences");
  });
  metrics_->check(s, run_->config.scheduler.enable_prefix_caching);
}

std::string ReplayChecker::requests_jsonl() const { return metrics_ ? metrics_->jsonl.str() : ""; }

ReplayTotals run_checked_replay(const Trace& trace, const ReplayConfig& config, bool with_metrics,
                                std::string* requests_jsonl) {
  ReplayChecker checker(trace, config, with_metrics);
  const ReplayTotals totals = run_replay(trace, config, checker.observers(), checker.hooks());
  checker.check_end(totals);
  if (requests_jsonl) *requests_jsonl = checker.requests_jsonl();
  return totals;
}

}  // namespace llm
