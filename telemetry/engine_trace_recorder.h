// Collects what --collect-detailed-traces shows per request from the engine's events: each step
// that computed some of its prompt (a prefill chunk, timed by the step) and each preemption (from
// the step decision that preempted it to the one that scheduled it again), on the engine clock.
// When a request finishes its events go to `on_finished_events` (llmsim builds its spans there)
// or, without one, meet llmserve's completion job through when_finished(): whichever of the
// engine's finish and the job's end comes second hands the events to the job's function (the job
// may end first, on a stop string, or just before the engine thread gets here).
// Thread-safety: the observer methods run on the engine thread; when_finished() may be called
// from any thread (one mutex guards the meeting point); `emit` runs on either thread.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/engine_observer.h"
#include "telemetry/request_span.h"

namespace llm {

class EngineTraceRecorder final : public EngineObserver {
 public:
  using FinishedFn = std::function<void(const Request&, EngineTraceEvents&&)>;
  explicit EngineTraceRecorder(FinishedFn on_finished_events = nullptr)
      : on_finished_events_(std::move(on_finished_events)) {}

  void on_preempted(const Request& request) override;
  void on_scheduled(const SchedulerOutput& batch, const Scheduler& scheduler) override;
  void on_step(const StepStats& stats) override;
  void on_finished(const Request& request) override;

  using EmitFn = std::function<void(EngineTraceEvents&&)>;
  // Calls emit with the request's events now if it has finished, else when it does.
  void when_finished(const std::string& external_id, EmitFn emit);

 private:
  // Engine thread only.
  std::unordered_map<uint64_t, EngineTraceEvents> live_;  // by engine request id
  std::vector<uint64_t> open_chunks_;  // requests whose last chunk waits for its step's times
  std::vector<uint64_t> untimed_preemptions_;  // preempted since the last decision's time
  FinishedFn on_finished_events_;
  static constexpr size_t kMaxParked = 4096;
  // Guarded by mutex_.
  std::mutex mutex_;
  std::unordered_map<std::string, EngineTraceEvents> parked_;  // finished, no job yet
  std::unordered_map<std::string, EmitFn> waiting_;            // job ended, engine not yet
};

}  // namespace llm
