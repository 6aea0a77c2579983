// BUDGET (a step's tokens, sequences and chunks within the scheduler's limits) and ADMISSION (a
// step stopped admitting only for a rule's reason, and admitted from the queue's head in the
// policy's order), checked on each step's batch.
#include <algorithm>
#include <tuple>

#include "sim/dst/engine_checker.h"
#include "sim/dst/invariant_check.h"

namespace llm {

void EngineChecker::check_budget(const SchedulerOutput& b, const Scheduler& s) const {
  const SchedulerConfig& c = run_.config.scheduler;
  require_invariant(b.total_tokens <= c.max_num_batched_tokens && !b.seqs.empty(), "BUDGET", [&] {
    return cat("a step of ", b.seqs.size(), " sequences, ", b.total_tokens, " tokens; budget ",
               c.max_num_batched_tokens);
  });
  // Running requests enter only by admission, which stops at max_num_active_seqs (vLLM's
  // max_num_active_reqs; max_num_seqs when unset).
  require_invariant(s.num_running() <= static_cast<size_t>(max_num_active_reqs(c)), "BUDGET", [&] {
    return cat(s.num_running(), " running, max_num_seqs ", c.max_num_seqs, ", max_num_active_seqs ",
               c.max_num_active_seqs);
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
      s.num_running() >= static_cast<size_t>(max_num_active_reqs(c))) {
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
  // Without the whole-sequence gate a head that fits whole must be admitted all the more (its
  // first chunk fits); one that does not may or may not be, so this checks less there.
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

}  // namespace llm
