// The engine step loop shared by llmsim and llmserve: accept requests and aborts between steps,
// schedule, run the batch on the Backend, apply its outputs (append tokens, stop checks, finish and
// free), and report every event to an EngineObserver. Time comes only from the Clock seam.
//
// A step is split into begin_step() and end_step() so a discrete-event simulator can interleave
// other events while the modelled GPU works; step() runs both in sequence for real-time use.
// Thread-safety: none; one thread drives an EngineCore (llmserve's engine thread, or the
// simulator).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/backend.h"
#include "core/clock.h"
#include "core/engine_observer.h"
#include "core/request.h"
#include "core/scheduler.h"

namespace llm {

class EngineCore {
 public:
  EngineCore(const SchedulerConfig& config, Backend& backend, Clock& clock,
             EngineObserver* observer = nullptr);

  // Takes ownership and queues the request at clock.now(); returns its engine id. A request that
  // can never run (empty prompt, prompt of max_model_len tokens or more, max_tokens < 1) finishes
  // at once with FinishReason::kError.
  uint64_t add_request(std::unique_ptr<Request> request);
  // Finishes a request with kAbort at clock.now(), wherever it is; frees its blocks. False when
  // no such unfinished request exists.
  bool abort_request(uint64_t id) { return finish_request(id, FinishReason::kAbort); }
  // The same with another reason: the frontend ended the sequence, e.g. kStop when its text
  // matched a stop string (vLLM counts those as "stop", not "abort").
  bool finish_request(uint64_t id, FinishReason reason);

  bool has_unfinished() const { return scheduler_.has_unfinished(); }
  bool step_in_flight() const { return in_flight_; }

  // Schedules at clock.now() and runs the batch. Returns false (nothing in flight) when nothing
  // could be scheduled. *duration gets the backend's modelled step time (0 for real backends; 0
  // also when it returns false).
  // REQUIRES: duration is not null (a required output passed by pointer, an exception to the
  // by-reference rule kept because callers outside core/ use it: sim/replay.cpp and
  // backends/cpu/batch_invariance_test.cpp).
  bool begin_step(Nanos* duration);
  // Applies the in-flight step's outputs with `end_time` as their timestamp.
  void end_step(Nanos end_time);
  // begin_step, wait on the clock for the modelled duration, end_step. False when idle.
  bool step();

  const Scheduler& scheduler() const { return scheduler_; }
  const SchedulerOutput& last_batch() const { return batch_; }
  uint64_t num_steps() const { return num_steps_; }

 private:
  void finish(Request& request, FinishReason reason, Nanos time);
  void retire(Request& request);  // notifies and destroys a finished request
  FinishReason stop_reason(Request& request, int32_t token) const;

  Scheduler scheduler_;
  Backend& backend_;
  Clock& clock_;
  EngineObserver* observer_;
  std::unordered_map<uint64_t, std::unique_ptr<Request>> requests_;
  uint64_t next_id_ = 0;
  SchedulerOutput batch_;
  std::vector<int32_t> sampled_;
  std::vector<Request*> finished_;
  bool in_flight_ = false;
  uint64_t num_steps_ = 0;
};

}  // namespace llm
