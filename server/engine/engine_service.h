// Runs an EngineCore on its own thread for llmserve. HTTP sessions never touch scheduler state:
// they submit requests and aborts through a locked inbox, and receive each sequence's progress
// through the sink they registered, which the engine thread calls (the sink must be quick and
// thread-safe: typically it posts to the session's executor).
// If a step (the backend) throws, the engine is dead: every in-flight request gets a finished
// update with FinishReason::kError, new submissions are refused, and only run_on_engine_thread
// keeps working; failed() tells /health.
// Thread-safety: every public method is safe from any thread except the engine thread itself
// (run_on_engine_thread, snapshot and stop wait for it); sinks are called on the engine thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/backend.h"
#include "core/engine_core.h"
#include "core/observer_tee.h"
#include "core/request.h"
#include "core/scheduler_config.h"
#include "server/engine/steady_clock.h"

namespace llm {

// One client request as the API layer hands it to the engine (before fan-out for n > 1).
struct GenerateRequest {
  std::string request_id;  // the client-visible id (X-Request-Id or generated)
  std::vector<int32_t> prompt_tokens;
  SamplingParams params;  // max_tokens already defaulted/validated by the API layer
  int32_t priority = 0;
  std::string cache_salt;   // Request::cache_salt ("" = none)
  Nanos arrival = kNoTime;  // steady-clock time the whole HTTP body was read; now if unset
};

// Progress of one sequence (child i of the request), delivered in order per sequence.
struct SequenceUpdate {
  int32_t child_index = 0;
  std::vector<int32_t> new_tokens;  // tokens produced since the previous update (usually one)
  bool finished = false;
  FinishReason finish_reason = FinishReason::kNone;
  int32_t stop_token = -1;  // the stop token id that ended it, if any
  int64_t prompt_tokens = 0;
  int64_t cached_tokens = 0;
  int64_t created_cache_tokens = 0;  // prompt tokens it wrote into the prefix cache (vLLM's)
  int64_t num_output_tokens = 0;     // total so far
  Timeline timeline;                 // final when finished
  // Only when the request's params ask (SamplingParams::logprobs, prompt_logprobs): one entry per
  // new token (none if the backend computes none), and, with the first token, the prompt's
  // positions 1, 2, ... (core/logprobs.h).
  std::vector<PositionLogprobs> logprobs;
  std::vector<PositionLogprobs> prompt_logprobs;
};

using SequenceSink = std::function<void(const SequenceUpdate&)>;

// The scheduler's state between two steps.
struct EngineSnapshot {
  size_t num_running = 0;
  size_t num_waiting = 0;
  double kv_usage = 0;
};

class EngineService {
 public:
  // The backend and the extra observer (e.g. metrics; may be null) must outlive the service.
  EngineService(const SchedulerConfig& config, Backend& backend, EngineObserver* observer);
  ~EngineService();  // stops the thread; unfinished requests are aborted

  // Queues a request; returns false (and calls nothing) when the service is stopping.
  // The sink receives every update of every child until each has finished.
  bool submit(GenerateRequest request, SequenceSink sink);
  // Called by submit() on the submitting thread with the sequences it added to num_waiting()
  // (admission control hands a reservation over with it). Set before serving.
  void set_submit_hook(std::function<void(int64_t sequences)> hook) {
    submit_hook_ = std::move(hook);
  }
  // Called on the engine thread after each step and each batch of commands, before the updates
  // they made reach their sinks (e.g. to publish the step's metrics, so that a client that saw an
  // answer finds it in the next scrape). Set before serving.
  void set_publish_hook(std::function<void()> hook) {
    std::lock_guard<std::mutex> lock(mutex_);
    publish_hook_ = std::move(hook);
  }
  // Aborts every sequence of the request (between engine steps). Unknown ids are ignored.
  void abort(const std::string& request_id);
  // Aborts everything still running or waiting (used when a drain times out).
  void abort_all();
  // Holds the waiting requests (new ones included) in the queue while paused (sleep mode; vLLM's
  // PAUSED_NEW); returns once the engine thread has applied it.
  void set_admission_paused(bool paused);
  // Ends one sequence (child `child_index`) of a request with `reason`, between steps: the API
  // layer calls it with kStop when the sequence's text matched a stop string.
  void finish_sequence(const std::string& request_id, int32_t child_index, FinishReason reason);

  // Cheap counters for /health, draining, admission control and tests.
  size_t num_unfinished() const { return unfinished_.load(); }
  // vLLM's admission load (core/admission_rule.h): sequences submitted and not finished (waiting
  // or running), and the prompt tokens of those that have no token yet. Counted at submit(), so
  // never below the true figures.
  int64_t num_unfinished_sequences() const { return std::max<int64_t>(load_.sequences.load(), 0); }
  int64_t num_prefill_tokens() const { return std::max<int64_t>(load_.prefill_tokens.load(), 0); }
  // Sequences waiting for their first scheduling: those submitted and not yet handed to the
  // scheduler plus the scheduler's waiting queue (preempted ones included), as published by the
  // engine thread when it takes commands and at each step's decision and end. Never below the
  // true count: while the engine thread moves a submission into the queue it counts twice.
  size_t num_waiting() const;
  // The engine thread caught an exception from a step: nothing more will run.
  bool failed() const { return failed_.load(); }
  const SchedulerConfig& config() const { return config_; }
  // Runs fn on the engine thread between steps and waits for it (e.g. to flush metrics).
  void run_on_engine_thread(const std::function<void()>& fn);
  EngineSnapshot snapshot();
  // KV-cache events (core/kv_events.h, --kv-events-config): from now on the engine collects them
  // and after each step hands that step's events, when there are any, to `sink` on the engine
  // thread (the sink must not block). Waits for the engine thread; call it before serving.
  void set_kv_event_sink(std::function<void(std::vector<KvEvent>)> sink);

  void stop();

 private:
  class Relay;  // the EngineObserver that turns engine events into sink calls
  struct Command {
    enum Kind { kSubmit, kAbort, kAbortAll, kFinishSequence, kCall } kind;
    GenerateRequest request;
    SequenceSink sink;
    std::string id;
    std::function<void()> call;
    std::shared_ptr<std::promise<void>> done;
    int32_t child_index = 0;
    FinishReason reason = FinishReason::kAbort;
  };

  void loop();
  void apply(Command& command);
  // Publishes the scheduler's waiting count, then forgets `applied` inbox sequences (in this
  // order, so that a reader never sees a submission in neither count).
  void publish_waiting(int64_t applied);
  // The publish hook, then the queued sink updates (engine thread).
  void publish();
  // The engine's state (running, waiting, KV blocks) to the observers without a step.
  void publish_state();
  // After a failure: fails every in-flight request; later commands are answered or dropped.
  void fail_all(const char* what);
  void apply_failed(Command& command);
  // Takes a submission that never reached the engine out of the admission load.
  void unload(const GenerateRequest& request);

  // Constant after construction (the hooks: before serving).
  SchedulerConfig config_;
  std::function<void(int64_t)> submit_hook_;
  std::function<void()> publish_hook_;
  Backend& backend_;  // asked for natural lengths on the engine thread; stepped by engine_

  // Owned by the engine thread once it has started: only loop() and the commands it applies touch
  // them (the constructor builds them before the thread starts).
  SteadyClock clock_;
  std::unique_ptr<Relay> relay_;
  ObserverTee tee_;
  std::unique_ptr<EngineCore> engine_;
  std::function<void(std::vector<KvEvent>)> kv_event_sink_;  // empty: no KV events

  // Guarded by mutex_; wake_ signals a new command or stopping_.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Command> inbox_;  // commands not yet taken by the engine thread, in order
  bool stopping_ = false;       // stop() was called: the loop aborts what is left and returns
  bool exited_ = false;         // the loop has returned

  // Readable from any thread without the lock.
  std::atomic<size_t> unfinished_{0};  // requests submitted and not yet finished (all children)
  struct AdmissionCounters {
    std::atomic<int64_t> sequences{0};       // unfinished sequences
    std::atomic<int64_t> prefill_tokens{0};  // their prompt tokens while they have no token
  };
  AdmissionCounters load_;
  std::atomic<int64_t> inbox_sequences_{0};    // sequences of kSubmit commands not yet applied
  std::atomic<int64_t> scheduler_waiting_{0};  // the scheduler's waiting queue, last published
  std::atomic<bool> failed_{false};            // a step threw; set once by the engine thread
  std::thread thread_;
};

}  // namespace llm
