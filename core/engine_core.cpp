#include "core/engine_core.h"

#include <algorithm>
#include <stdexcept>

namespace llm {
namespace {

EngineObserver& null_observer() {
  static EngineObserver none;
  return none;
}

}  // namespace

EngineCore::EngineCore(const SchedulerConfig& config, Backend& backend, Clock& clock,
                       EngineObserver* observer)
    : scheduler_(config),
      backend_(backend),
      clock_(clock),
      observer_(observer ? observer : &null_observer()) {}

uint64_t EngineCore::add_request(std::unique_ptr<Request> owned) {
  Request& r = *owned;
  r.id = next_id_++;
  const Nanos now = clock_.now();
  if (r.timeline.arrival == kNoTime) r.timeline.arrival = now;
  if (!r.prompt_tokens.empty()) r.prompt_len = static_cast<int64_t>(r.prompt_tokens.size());
  requests_.emplace(r.id, std::move(owned));

  const int64_t max_model_len = scheduler_.config().max_model_len;
  if (r.prompt_len < 1 || r.prompt_len >= max_model_len || r.params.max_tokens == 0 ||
      r.effective_max_tokens(max_model_len) < 1) {
    finish(r, FinishReason::kError, now);
    retire(r);
    return r.id;
  }
  r.timeline.queued = now;
  scheduler_.add(&r);
  observer_->on_queued(r);
  return r.id;
}

bool EngineCore::finish_request(uint64_t id, FinishReason reason) {
  auto it = requests_.find(id);
  if (it == requests_.end() || it->second->is_finished()) return false;
  if (in_flight_) throw std::logic_error("finish_request during a step: apply it between steps");
  Request& r = *it->second;
  scheduler_.remove(&r);
  finish(r, reason, clock_.now());
  retire(r);
  return true;
}

bool EngineCore::begin_step(Nanos* duration) {
  if (in_flight_) throw std::logic_error("begin_step while a step is in flight");
  scheduler_.schedule(clock_.now(), batch_);
  for (Request* r : batch_.preempted) observer_->on_preempted(*r);
  // A step can preempt and then schedule nothing (under the priority policy the requester may be
  // the victim with nothing scheduled before it). Like vLLM's next iteration, schedule again at
  // once: the preemption freed blocks, so the next decision makes progress.
  while (batch_.empty() && !batch_.preempted.empty()) {
    scheduler_.schedule(clock_.now(), batch_);
    for (Request* r : batch_.preempted) observer_->on_preempted(*r);
  }
  if (batch_.empty()) {
    *duration = 0;
    return false;
  }
  observer_->on_scheduled(batch_, scheduler_);
  *duration = backend_.execute(batch_, sampled_);
  in_flight_ = true;
  return true;
}

FinishReason EngineCore::stop_reason(Request& r, int32_t token) const {
  const int64_t max_model_len = scheduler_.config().max_model_len;
  if (r.num_tokens() >= max_model_len ||
      r.num_output_tokens >= r.effective_max_tokens(max_model_len)) {
    return FinishReason::kLength;
  }
  if (!r.params.ignore_eos && token == backend_.eos_token_id()) return FinishReason::kStop;
  const auto& stops = r.params.stop_token_ids;
  if (std::find(stops.begin(), stops.end(), token) != stops.end()) {
    r.stop_token = token;
    return FinishReason::kStop;
  }
  return FinishReason::kNone;
}

void EngineCore::end_step(Nanos end_time) {
  if (!in_flight_) throw std::logic_error("end_step without a step in flight");
  in_flight_ = false;
  ++num_steps_;
  finished_.clear();
  for (size_t i = 0; i < batch_.seqs.size(); ++i) {
    const ScheduledSeq& s = batch_.seqs[i];
    if (!s.samples) continue;
    Request& r = *s.request;
    const int32_t token = sampled_[i];
    r.append_output_token(token);
    const Nanos itl = r.timeline.last_token == kNoTime ? kNoTime : end_time - r.timeline.last_token;
    if (r.timeline.first_token == kNoTime) r.timeline.first_token = end_time;
    r.timeline.last_token = end_time;
    observer_->on_token(r, end_time, itl);
    const FinishReason reason = stop_reason(r, token);
    if (reason != FinishReason::kNone) {
      finish(r, reason, end_time);
      finished_.push_back(&r);
    }
  }
  if (!finished_.empty()) scheduler_.drop_finished();

  StepStats stats;
  stats.start = batch_.schedule_time;
  stats.end = end_time;
  stats.scheduled_tokens = batch_.total_tokens;
  stats.num_seqs = static_cast<int64_t>(batch_.seqs.size());
  stats.num_preempted = static_cast<int64_t>(batch_.preempted.size());
  stats.num_running = static_cast<int64_t>(scheduler_.num_running());
  stats.num_waiting = static_cast<int64_t>(scheduler_.num_waiting());
  stats.free_blocks = scheduler_.kv().pool().num_free();
  stats.usable_blocks = scheduler_.kv().pool().num_usable();
  stats.kv_usage = scheduler_.kv().usage();
  observer_->on_step(stats);

  for (Request* r : finished_) retire(*r);
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
  backend_.release(r);
  requests_.erase(r.id);
}

}  // namespace llm
