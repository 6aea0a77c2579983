#include "core/engine_core.h"

#include <algorithm>
#include <stdexcept>

namespace llm {
namespace {

// How many sequences ahead apply_outputs asks for a request's cache lines.
constexpr size_t kPrefetchAhead = 8;

EngineObserver& null_observer() {
  static EngineObserver none;
  return none;
}

}  // namespace

EngineCore::EngineCore(const SchedulerConfig& config, Backend& backend, Clock& clock,
                       EngineObserver* observer, size_t park_window)
    : scheduler_(config),
      backend_(backend),
      clock_(clock),
      observer_(observer ? observer : &null_observer()) {
  if (park_window > 0) {
    scheduler_.enable_parking(park_window, [this](std::unique_ptr<Request> owned) {
      Request* r = owned.get();
      requests_.emplace(r->id, std::move(owned));
      return r;
    });
  }
}

uint64_t EngineCore::add_request(std::unique_ptr<Request> owned) {
  Request& r = *owned;
  const uint64_t id = next_id_++;
  r.id = id;
  const Nanos now = clock_.now();
  if (r.timeline.arrival == kNoTime) r.timeline.arrival = now;
  if (!r.prompt_tokens.empty()) r.prompt_len = static_cast<int64_t>(r.prompt_tokens.size());
  requests_.emplace(r.id, std::move(owned));

  const int64_t max_model_len = scheduler_.config().max_model_len;
  if (r.prompt_len < 1 || r.prompt_len >= max_model_len || r.params.max_tokens == 0 ||
      r.effective_max_tokens(max_model_len) < 1) {
    finish(r, FinishReason::kError, now);
    retire(r);  // destroys r
    return id;
  }
  r.timeline.queued = now;
  const bool parked = scheduler_.add(&r);
  observer_->on_queued(r);
  // A parked request lives on as the waiting queue's record (the backend never saw it).
  if (parked) requests_.erase(id);
  return id;
}

bool EngineCore::finish_request(uint64_t id, FinishReason reason) {
  if (!requests_.contains(id) && id < next_id_) scheduler_.unpark_waiting();
  auto it = requests_.find(id);
  if (it == requests_.end() || it->second->is_finished()) return false;
  if (in_flight_) throw std::logic_error("finish_request during a step: apply it between steps");
  Request& r = *it->second;
  scheduler_.remove(&r);
  finish(r, reason, clock_.now());
  retire(r);
  return true;
}

void EngineCore::schedule(Nanos admit_queued_until) {
  scheduler_.schedule(clock_.now(), batch_, admit_queued_until);
  report_residency();
  for (Request* r : batch_.preempted) observer_->on_preempted(*r);
  // A step can preempt and then schedule nothing (under the priority policy the requester may be
  // the victim with nothing scheduled before it). Like vLLM's next iteration, schedule again at
  // once: the preemption freed blocks, so the next decision makes progress.
  while (batch_.empty() && !batch_.preempted.empty()) {
    scheduler_.schedule(clock_.now(), batch_, admit_queued_until);
    report_residency();
    for (Request* r : batch_.preempted) observer_->on_preempted(*r);
  }
}

void EngineCore::report_residency() {
  if (!scheduler_.kv().residency_enabled()) return;
  const KvResidencyObservations observed = scheduler_.kv().take_residency();
  if (!observed.empty()) observer_->on_kv_block_residency(observed);
}

bool EngineCore::begin_step(Nanos* duration) {
  if (in_flight_) throw std::logic_error("begin_step while a step is in flight");
  const Nanos now = clock_.now();
  if (scheduler_.config().async_scheduling) {
    // This step was decided when the previous one began: what arrived since waits a step more.
    schedule(admit_queued_until_);
    // An idle engine decides at once (there was no step for the decision to overlap).
    if (batch_.empty() && scheduler_.num_waiting() > 0 && admit_queued_until_ < now) {
      schedule(kForever);
    }
    admit_queued_until_ = batch_.empty() ? kForever : now;
  } else {
    schedule(kForever);
  }
  if (batch_.empty() && !seat_holders_.empty()) {
    // Seat holders that found no KV slot for their held step: they leave now, and what they
    // held may let others in.
    collect_seat_holders();
    observer_->on_state(state());
    schedule(kForever);
  }
  if (batch_.empty()) {
    *duration = 0;
    return false;
  }
  observer_->on_scheduled(batch_, scheduler_);
  try {
    *duration = backend_.execute(batch_, sampled_);
    step_failed_ = false;
  } catch (const StepFailed& failure) {
    *duration = failure.elapsed();
    step_failed_ = true;
  }
  in_flight_ = true;
  return true;
}

// vLLM's order: EOS and stop token ids first, then the length limits, so a max_tokens-th token
// that is EOS finishes the sequence as "stop". Within the first min_tokens tokens (where vLLM
// masks them out of sampling, as the cpu backend does) EOS and stop token ids end nothing.
FinishReason EngineCore::stop_reason(Request& r, int32_t token) const {
  if (r.num_output_tokens > r.params.min_tokens) {
    if (!r.params.ignore_eos && token == backend_.eos_token_id()) return FinishReason::kStop;
    const auto& stops = r.params.stop_token_ids;
    if (std::find(stops.begin(), stops.end(), token) != stops.end()) {
      r.stop_token = token;
      return FinishReason::kStop;
    }
  }
  return at_length_limit(r) ? FinishReason::kLength : FinishReason::kNone;
}

bool EngineCore::at_length_limit(const Request& r) const {
  const int64_t max_model_len = scheduler_.config().max_model_len;
  return r.num_tokens() >= max_model_len ||
         r.num_output_tokens >= r.effective_max_tokens(max_model_len);
}

void EngineCore::report_preemptions(Request& r) {
  const int32_t count = r.timeline.num_preemptions - r.num_preemptions_reported;
  if (count <= 0) return;
  r.num_preemptions_reported = r.timeline.num_preemptions;
  observer_->on_preemptions_reported(r, count);
}

void EngineCore::end_step(Nanos end_time) {
  if (!in_flight_) throw std::logic_error("end_step without a step in flight");
  in_flight_ = false;
  ++num_steps_;
  finished_.clear();
  left_.clear();
  new_seat_holders_.clear();
  if (step_failed_) {
    fail_batch(end_time);
  } else {
    attach_logprobs();
    apply_outputs(end_time);
  }
  if (!finished_.empty() || !seat_holders_.empty()) scheduler_.drop_finished();
  release_seat_holders();

  StepStats stats = state();
  stats.start = batch_.schedule_time;
  stats.end = end_time;
  stats.scheduled_tokens = batch_.total_tokens;
  stats.num_seqs = static_cast<int64_t>(batch_.seqs.size());
  stats.num_preempted = static_cast<int64_t>(batch_.preempted.size());
  observer_->on_step(stats);

  // Sequences holding their seat are finished for the observer now; they leave when it is over.
  for (Request* r : new_seat_holders_) observer_->on_finished(*r);
  for (Request* r : finished_) retire(*r);
  for (Request* r : left_) destroy(*r);
}

void EngineCore::apply_outputs(Nanos end_time) {
  tokens_.clear();
  const size_t n = batch_.seqs.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) prefetch_step_fields(*batch_.seqs[i + kPrefetchAhead].request);
    const ScheduledSeq& s = batch_.seqs[i];
    if (!s.samples) continue;
    Request& r = *s.request;
    if (r.is_finished()) continue;  // a seat holder's step: its output is nobody's
    const int32_t token = sampled_[i];
    r.append_output_token(token);
    const Nanos itl = r.timeline.last_token == kNoTime ? kNoTime : end_time - r.timeline.last_token;
    if (r.timeline.first_token == kNoTime) r.timeline.first_token = end_time;
    r.timeline.last_token = end_time;
    report_preemptions(r);
    tokens_.push_back({&r, itl});
    const FinishReason reason = stop_reason(r, token);
    if (reason == FinishReason::kNone) continue;
    finish(r, reason, end_time);
    if (reason == FinishReason::kStop && scheduler_.config().async_scheduling &&
        !at_length_limit(r)) {
      // The next step was decided before this token was seen: the sequence holds its seat
      // through it (a length limit is known in advance, so only a sampled stop before it does
      // this; one on the last allowed token was not scheduled again).
      r.holds_seat = true;
      seat_holders_.push_back(&r);
      new_seat_holders_.push_back(&r);
    } else {
      finished_.push_back(&r);
    }
  }
  if (!tokens_.empty()) observer_->on_tokens(tokens_, end_time);
}

void EngineCore::attach_logprobs() {
  for (const SeqLogprobs& s : backend_.logprobs().seqs) {
    Request& r = *batch_.seqs[s.seq].request;
    // Position p is entry p - 1; a prompt recomputed after preemption is not scored twice.
    for (size_t j = 0; j < s.prompt.size(); ++j) {
      const int64_t position = s.first_prompt_position + static_cast<int64_t>(j);
      if (position == static_cast<int64_t>(r.prompt_logprobs.size()) + 1) {
        r.prompt_logprobs.push_back(s.prompt[j]);
      }
    }
    if (s.sampled) r.last_logprobs = s.sampled;
  }
}

void EngineCore::collect_seat_holders() {
  scheduler_.drop_finished();
  release_seat_holders();
  for (Request* r : left_) destroy(*r);
  left_.clear();
}

void EngineCore::release_seat_holders() {
  auto gone = [this](Request* r) {
    if (r->holds_seat) return false;  // not scheduled yet (the budget ran out before it)
    left_.push_back(r);
    return true;
  };
  seat_holders_.erase(std::remove_if(seat_holders_.begin(), seat_holders_.end(), gone),
                      seat_holders_.end());
}

void EngineCore::fail_batch(Nanos end_time) {
  for (const ScheduledSeq& s : batch_.seqs) {
    if (s.request->is_finished()) continue;  // a seat holder keeps its stop
    report_preemptions(*s.request);          // the error is an output the frontend hears of
    finish(*s.request, FinishReason::kError, end_time);
    finished_.push_back(s.request);
  }
}

StepStats EngineCore::state() const {
  StepStats stats;
  stats.start = stats.end = clock_.now();
  stats.num_running = static_cast<int64_t>(scheduler_.num_unfinished_running());
  stats.num_seat_holders = static_cast<int64_t>(scheduler_.num_running()) - stats.num_running;
  stats.num_waiting = static_cast<int64_t>(scheduler_.num_waiting());
  stats.free_blocks = scheduler_.kv().pool().num_free();
  stats.usable_blocks = scheduler_.kv().pool().num_usable();
  stats.kv_usage = scheduler_.kv().usage();
  return stats;
}

const Request* EngineCore::find_request(uint64_t id) {
  if (!requests_.contains(id) && id < next_id_) scheduler_.unpark_waiting();
  auto it = requests_.find(id);
  return it == requests_.end() || it->second->is_finished() ? nullptr : it->second.get();
}

bool EngineCore::step() {
  const Nanos start = clock_.now();
  Nanos duration = 0;
  if (!begin_step(&duration)) return false;
  clock_.wait_until(start + duration);
  end_step(clock_.now());
  return true;
}

void EngineCore::finish(Request& r, FinishReason reason, Nanos time) {
  r.state = RequestState::kFinished;
  r.finish_reason = reason;
  r.timeline.finished = time;
}

void EngineCore::retire(Request& r) {
  observer_->on_finished(r);
  destroy(r);
}

void EngineCore::destroy(Request& r) {
  backend_.release(r);
  requests_.erase(r.id);
}

}  // namespace llm
