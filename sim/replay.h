// The discrete-event driver of llmsim: replays a trace through EngineCore instances on simulated
// integer-nanosecond time. Events are arrivals (from the trace) and step completions (from the mock
// GPU's cost model). A request arriving while its engine is mid-step is queued when that step
// completes, as vLLM's engine core takes input between steps; an idle engine with a schedulable
// request always starts a step at once (work conservation).
// Thread-safety: run_replay is single-threaded and uses no global state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "backends/sim/cost_model.h"
#include "core/engine_observer.h"
#include "core/scheduler_config.h"
#include "sim/trace.h"

namespace llm {

struct ReplayConfig {
  SchedulerConfig scheduler;  // num_gpu_blocks must be set
  Deployment deployment;
  uint64_t seed = 0;
};

struct ReplayTotals {
  Nanos end_time = 0;          // when the last request finished (0 for an empty trace)
  int64_t num_steps = 0;
  int64_t peak_waiting = 0;    // longest waiting queue seen after arrivals or a step
  int64_t num_sequences = 0;   // engine requests (n children counted one by one)
  int64_t num_preemptions = 0;
  int64_t prefix_queries = 0;  // prefix-cache lookups, in prompt tokens
  int64_t prefix_hits = 0;     // of those, tokens found cached
  int64_t num_gpu_blocks = 0;
};

// Builds the engine request for one trace entry (before fan-out for n > 1).
std::unique_ptr<Request> make_request(const TraceRequest& entry, size_t index);

// Replays the trace; every engine event goes to `observer`. `on_step` (optional) is called after
// each step with the engine, for invariant checks in tests.
ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config, EngineObserver& observer,
                        const std::function<void(const class EngineCore&)>& on_step = {});

}  // namespace llm
