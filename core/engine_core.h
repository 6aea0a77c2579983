// The engine step loop shared by llmsim and llmserve: accept requests and aborts between steps,
// schedule, run the batch on the Backend, apply its outputs (append tokens, stop checks, finish and
// free), and report every event to an EngineObserver. Time comes only from the Clock seam.
//
// A step is split into begin_step() and end_step() so a discrete-event simulator can interleave
// other events while the modelled GPU works; step() runs both in sequence for real-time use.
//
// Async scheduling (SchedulerConfig::async_scheduling, vLLM's default): step k+1 is decided when
// step k begins, so a request that arrives while step k runs is scheduled at step k+2, and a
// sequence that stops on a sampled token at step k holds its seat (a decode token of the budget,
// its KV blocks) through step k+1 before it leaves; clients and metrics see its finish at step k.
//
// A backend that throws StepFailed from execute() fails only that step: at end_step every
// sequence of its batch finishes with FinishReason::kError (blocks freed, observer notified, no
// tokens applied) and the engine goes on. Any other exception from the backend propagates.
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
#include "core/kv_events.h"
#include "core/request.h"
#include "core/scheduler.h"

namespace llm {

class EngineCore {
 public:
  // Under FCFS, requests waiting beyond the first kParkWindow are kept as compact records
  // (core/parked_requests.h) until they reach it: what the scheduler and observers see is the
  // same, an overloaded engine's memory is not. 0 turns that off.
  static constexpr size_t kParkWindow = 512;

  EngineCore(const SchedulerConfig& config, Backend& backend, Clock& clock,
             EngineObserver* observer = nullptr, size_t park_window = kParkWindow);
  // The waiting-queue parking keeps a pointer to this object.
  EngineCore(const EngineCore&) = delete;
  EngineCore& operator=(const EngineCore&) = delete;

  // Takes ownership and queues the request at clock.now(); returns its engine id. A request that
  // can never run (empty prompt, prompt of max_model_len tokens or more, max_tokens < 1) finishes
  // at once with FinishReason::kError without being queued (refused_at_admission: vLLM's frontend
  // rejects it, and no engine metric observes it).
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
  // by-reference rule kept because callers outside core/ use it: sim/replay/replay.cpp and
  // backends/cpu/batch_invariance_test.cpp).
  bool begin_step(Nanos* duration);
  // Applies the in-flight step's outputs with `end_time` as their timestamp; when the backend threw
  // StepFailed, finishes the step's batch with kError at `end_time` instead.
  void end_step(Nanos end_time);
  // begin_step, wait on the clock for the modelled duration, end_step. False when idle.
  bool step();

  const Scheduler& scheduler() const { return scheduler_; }
  // Scheduler::set_admission_paused (vLLM's PAUSED_NEW, for sleep mode). Between steps only.
  void set_admission_paused(bool paused) { scheduler_.set_admission_paused(paused); }
  const SchedulerOutput& last_batch() const { return batch_; }
  uint64_t num_steps() const { return num_steps_; }
  // Whether the latest begun step's backend threw StepFailed.
  bool last_step_failed() const { return step_failed_; }
  // The unfinished request with engine id `id`, or null. A parked one becomes a Request first
  // (with every other parked one: lookups by id are for aborts, which are rare).
  const Request* find_request(uint64_t id);
  // KV-cache events (core/kv_events.h): collection starts here and is off by default (the engine
  // then pays nothing for it). take_kv_events() gives the events since the previous call, in the
  // order they happened; call it after each step to batch them per step, as vLLM does.
  void enable_kv_events() { scheduler_.kv().enable_kv_events(); }
  std::vector<KvEvent> take_kv_events() { return scheduler_.kv().take_kv_events(); }
  // vLLM's reset_prefix_cache: forgets every cached block (an AllBlocksCleared event) when no
  // request holds any; false, changing nothing, otherwise. Call it between steps.
  bool reset_prefix_cache() { return scheduler_.kv().reset_prefix_cache(); }
  // The sets and KV usage now, as a StepStats with start = end = clock.now() and no step figures
  // (what EngineObserver::on_state takes after requests left between steps).
  StepStats state() const;

 private:
  void schedule(Nanos admit_queued_until);  // into batch_, again after a preemption-only step
  void report_residency();  // hands the block residency sampled while scheduling to the observer
  void apply_outputs(Nanos end_time);  // tokens, stop checks
  void attach_logprobs();              // the backend's log-probabilities into the requests
  void release_seat_holders();         // those whose held step is over join left_
  void collect_seat_holders();         // between steps: drops and destroys them
  void fail_batch(Nanos end_time);     // StepFailed: every sequence of the batch ends with kError
  void finish(Request& request, FinishReason reason, Nanos time);
  void retire(Request& request);   // notifies and destroys a finished request
  void destroy(Request& request);  // forgets it (the backend too)
  FinishReason stop_reason(Request& request, int32_t token) const;
  bool at_length_limit(const Request& request) const;  // max_tokens or the context reached
  // Tells the observer of the preemptions since the request's previous output (it reports one now).
  void report_preemptions(Request& request);

  Scheduler scheduler_;
  Backend& backend_;
  Clock& clock_;
  EngineObserver* observer_;
  std::unordered_map<uint64_t, std::unique_ptr<Request>> requests_;
  uint64_t next_id_ = 0;
  SchedulerOutput batch_;
  std::vector<int32_t> sampled_;
  std::vector<TokenEvent> tokens_;  // the step's outputs, for the observer's on_tokens
  std::vector<Request*> finished_;
  std::vector<Request*> seat_holders_;  // finished, holding their seat one step (async scheduling)
  std::vector<Request*> new_seat_holders_;  // this step's: the observer hears of them now
  std::vector<Request*> left_;              // seat holders whose held step is over
  Nanos admit_queued_until_ = kForever;  // async: requests queued later wait for the next decision
  bool in_flight_ = false;
  bool step_failed_ = false;
  uint64_t num_steps_ = 0;
};

}  // namespace llm
