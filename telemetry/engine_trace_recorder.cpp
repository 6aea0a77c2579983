#include "telemetry/engine_trace_recorder.h"

#include <algorithm>

namespace llm {

void EngineTraceRecorder::on_preempted(const Request& r) {
  live_[r.id].preemptions.push_back(Preemption{});  // timed by the decision, in on_scheduled
  untimed_preemptions_.push_back(r.id);
}

void EngineTraceRecorder::on_scheduled(const SchedulerOutput& batch, const Scheduler&) {
  for (uint64_t id : untimed_preemptions_) {
    auto it = live_.find(id);
    if (it == live_.end()) continue;
    for (Preemption& p : it->second.preemptions) {
      if (p.at == kNoTime) p.at = batch.schedule_time;
    }
  }
  untimed_preemptions_.clear();
  open_chunks_.clear();
  for (const ScheduledSeq& s : batch.seqs) {
    const Request& r = *s.request;
    EngineTraceEvents& events = live_[r.id];
    if (!events.preemptions.empty() && events.preemptions.back().resumed == kNoTime &&
        events.preemptions.back().at != kNoTime) {
      events.preemptions.back().resumed = batch.schedule_time;
    }
    const int64_t prompt_left = r.prompt_len - s.num_computed_before;
    if (prompt_left > 0) {
      events.prefill_chunks.push_back(
          PrefillChunk{kNoTime, kNoTime, std::min(prompt_left, s.num_new_tokens)});
      open_chunks_.push_back(r.id);
    }
  }
}

void EngineTraceRecorder::on_step(const StepStats& stats) {
  for (uint64_t id : open_chunks_) {
    auto it = live_.find(id);
    if (it == live_.end() || it->second.prefill_chunks.empty()) continue;
    it->second.prefill_chunks.back().start = stats.start;
    it->second.prefill_chunks.back().end = stats.end;
  }
  open_chunks_.clear();
}

void EngineTraceRecorder::on_finished(const Request& r) {
  EngineTraceEvents events;
  auto it = live_.find(r.id);
  if (it != live_.end()) {
    events = std::move(it->second);
    live_.erase(it);
  }
  // A chunk whose step never reported (the request left inside it) is dropped.
  std::erase_if(events.prefill_chunks, [](const PrefillChunk& c) { return c.end == kNoTime; });
  if (on_finished_events_) {
    on_finished_events_(r, std::move(events));
    return;
  }
  EmitFn emit;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto waiting = waiting_.find(r.external_id);
    if (waiting != waiting_.end()) {
      emit = std::move(waiting->second);
      waiting_.erase(waiting);
    } else {
      // Events no job takes (a request that was never a job's) must not pile up.
      if (parked_.size() >= kMaxParked) parked_.clear();
      parked_[r.external_id] = std::move(events);
      return;
    }
  }
  emit(std::move(events));
}

void EngineTraceRecorder::when_finished(const std::string& external_id, EmitFn emit) {
  EngineTraceEvents events;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = parked_.find(external_id);
    if (it == parked_.end()) {
      if (waiting_.size() >= kMaxParked) waiting_.clear();
      waiting_[external_id] = std::move(emit);
      return;
    }
    events = std::move(it->second);
    parked_.erase(it);
  }
  emit(std::move(events));
}

}  // namespace llm
