#include "core/scheduler.h"

#include <algorithm>
#include <tuple>

namespace llm {

void SchedulerOutput::clear() {
  schedule_time = kNoTime;
  seqs.clear();
  preempted.clear();
  total_tokens = 0;
  num_admitted = 0;
}

Scheduler::Scheduler(const SchedulerConfig& config)
    : config_(config),
      kv_(config.num_gpu_blocks, config.block_size, config.enable_prefix_caching),
      waiting_(config.policy) {
  running_.reserve(static_cast<size_t>(config.max_num_seqs));
  // vLLM: a rate <= 0 disables the collector.
  if (config.kv_cache_metrics && config.kv_cache_metrics_sample > 0) {
    kv_.enable_residency_metrics(config.kv_cache_metrics_sample);
  }
}

bool Scheduler::add(Request* r) {
  r->state = RequestState::kWaiting;
  return waiting_.push_back(r);
}

bool Scheduler::remove(Request* r) {
  bool found = waiting_.remove(r);
  if (!found) {
    auto it = std::find(running_.begin(), running_.end(), r);
    if (it != running_.end()) {
      running_.erase(it);
      found = true;
    }
  }
  if (found) kv_.release(*r);
  return found;
}

int64_t Scheduler::cap_at_threshold(int64_t wanted) const {
  if (config_.long_prefill_token_threshold > 0) {
    wanted = std::min(wanted, config_.long_prefill_token_threshold);
  }
  return wanted;
}

void Scheduler::schedule(Nanos now, SchedulerOutput& out, Nanos admit_queued_until) {
  out.clear();
  out.schedule_time = now;
  kv_.set_time(now);
  int64_t budget = config_.max_num_batched_tokens;
  schedule_running(out, budget);
  // vLLM: the waiting queue is served only in a step that preempted nothing, and not while paused.
  if (out.preempted.empty() && !admission_paused_) {
    schedule_waiting(now, admit_queued_until, out, budget);
  }
  for (ScheduledSeq& s : out.seqs) {
    s.request->num_computed_tokens = s.num_computed_before + s.num_new_tokens;
    s.samples = s.request->num_computed_tokens >= s.request->num_tokens();
    out.total_tokens += s.num_new_tokens;
  }
}

void Scheduler::schedule_running(SchedulerOutput& out, int64_t& budget) {
  size_t i = 0;
  while (i < running_.size() && budget > 0) {
    // Its cache lines a few requests ahead (a hint: a decode batch's requests are a few hundred
    // kilobytes, and this is the step's first read of them).
    if (i + 8 < running_.size()) prefetch_step_fields(*running_[i + 8]);
    Request* r = running_[i];
    if (r->holds_seat) {
      schedule_seat_holder(*r, out, budget);
      ++i;
      continue;
    }
    int64_t wanted = std::min(cap_at_threshold(r->num_tokens() - r->num_computed_tokens), budget);
    wanted = std::min(wanted, config_.max_model_len - 1 - r->num_computed_tokens);
    if (wanted <= 0) {
      ++i;
      continue;
    }
    bool self_preempted = false;
    while (!kv_.allocate_slots(*r, wanted)) {
      const size_t victim = pick_victim();
      self_preempted = running_[victim] == r;
      if (victim < i) --i;  // priority policy: an earlier request leaves the running set
      preempt(victim, out, budget);
      if (self_preempted) break;
    }
    if (self_preempted) break;
    out.seqs.push_back({r, r->num_computed_tokens, wanted, false});
    budget -= wanted;
    ++i;
  }
}

// A finished request's last scheduled step under async scheduling: one decode token whose output
// nobody uses, without preempting anyone for it.
void Scheduler::schedule_seat_holder(Request& r, SchedulerOutput& out, int64_t& budget) {
  r.holds_seat = false;  // whether or not it fits, it leaves after this step
  if (!kv_.allocate_slots(r, 1)) return;
  out.seqs.push_back({&r, r.num_computed_tokens, 1, false});
  budget -= 1;
}

void Scheduler::schedule_waiting(Nanos now, Nanos admit_queued_until, SchedulerOutput& out,
                                 int64_t& budget) {
  while (!waiting_.empty() && budget > 0) {
    // vLLM: num_running >= max_num_active_reqs (max_num_active_seqs, else max_num_seqs).
    if (running_.size() >= static_cast<size_t>(max_num_active_reqs(config_))) break;
    Request* r = waiting_.front();
    if (r->timeline.queued > admit_queued_until) break;
    int64_t hit_tokens = kv_.find_cached_prefix(*r, hit_blocks_);
    int64_t wanted = cap_at_threshold(r->num_tokens() - r->num_computed_tokens - hit_tokens);
    // vLLM compares with the budget after the threshold cap.
    if (!config_.enable_chunked_prefill && wanted > budget) break;
    wanted = std::min(wanted, budget);
    // vLLM's scheduler_reserve_full_isl: the whole current sequence must fit, not only this chunk.
    if (config_.scheduler_reserve_full_isl && !kv_.can_admit(*r, hit_blocks_)) break;
    if (!kv_.allocate_slots(*r, wanted, hit_blocks_)) break;

    waiting_.pop_front();
    running_.push_back(r);
    r->state = RequestState::kRunning;
    // Under async scheduling the decision was taken when the previous step began.
    if (r->timeline.scheduled == kNoTime) r->timeline.scheduled = std::min(now, admit_queued_until);
    if (r->num_cached_tokens < 0) {
      r->num_cached_tokens = hit_tokens;
      if (kv_.prefix_caching()) kv_.record_lookup(r->num_tokens(), hit_tokens);
    }
    out.seqs.push_back({r, r->num_computed_tokens + hit_tokens, wanted, false});
    ++out.num_admitted;
    budget -= wanted;
  }
}

// vLLM: FCFS pops the running set's tail; priority takes max() over (priority, arrival), which
// among equals is the first in running order. Without the whole-sequence admission gate that tie
// rule can livelock (docs/scheduler.md): the victim, the sibling furthest along, is readmitted for
// one chunk at the back and the next one at the front is preempted in turn, so none finishes.
// There ties go by the waiting queue's own order instead (the largest (priority, arrival, id) is
// the victim): the smallest unfinished request is then never preempted while another runs, so it
// finishes, and so does each one after it.
size_t Scheduler::pick_victim() const {
  if (config_.policy == SchedulingPolicy::kFcfs) return running_.size() - 1;
  const bool queue_order = !config_.scheduler_reserve_full_isl;
  size_t victim = 0;
  for (size_t i = 1; i < running_.size(); ++i) {
    const Request* a = running_[i];
    const Request* b = running_[victim];
    const bool later = queue_order ? priority_order_less(*b, *a)
                                   : std::tuple(a->priority, a->timeline.arrival) >
                                         std::tuple(b->priority, b->timeline.arrival);
    if (later) victim = i;
  }
  return victim;
}

void Scheduler::preempt(size_t index, SchedulerOutput& out, int64_t& budget) {
  Request* victim = running_[index];
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(index));
  // Under the priority policy the victim may already hold a share of this step: give it back.
  auto it = std::find_if(out.seqs.begin(), out.seqs.end(),
                         [victim](const ScheduledSeq& s) { return s.request == victim; });
  if (it != out.seqs.end()) {
    budget += it->num_new_tokens;
    out.seqs.erase(it);
  }
  kv_.release(*victim);
  if (victim->is_finished()) {  // a seat holder (async scheduling): it only leaves early
    victim->holds_seat = false;
    return;
  }
  victim->num_computed_tokens = 0;
  victim->state = RequestState::kWaiting;
  ++victim->timeline.num_preemptions;
  ++num_preemptions_;
  waiting_.push_preempted(victim);
  out.preempted.push_back(victim);
}

size_t Scheduler::num_unfinished_running() const {
  return static_cast<size_t>(std::count_if(running_.begin(), running_.end(),
                                           [](const Request* r) { return !r->is_finished(); }));
}

void Scheduler::drop_finished() {
  auto finished = [this](Request* r) {
    if (!r->is_finished() || r->holds_seat) return false;
    kv_.release(*r);
    return true;
  };
  running_.erase(std::remove_if(running_.begin(), running_.end(), finished), running_.end());
}

}  // namespace llm
