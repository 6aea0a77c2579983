// The discrete-event driver of llmsim: replays a trace through one or more EngineCore instances
// (data parallelism, each with its own KV cache, behind a Router) on simulated integer-nanosecond
// time. Events are arrivals (from the trace), step completions (from the mock GPU's cost model) and
// optional metric scrapes. At one instant, step completions come first, then arrivals, then the
// scrape, then idle engines start their next step.
//
// A request arriving while its engine is mid-step is queued when that step completes, as vLLM's
// engine core takes input between steps; an idle engine with a schedulable request always starts a
// step at once (work conservation).
// Thread-safety: run_replay is single-threaded and uses no global state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backends/sim/cost_model.h"
#include "core/engine_observer.h"
#include "core/scheduler_config.h"
#include "sim/router.h"
#include "sim/trace.h"

namespace llm {

class EngineCore;

struct ReplayConfig {
  SchedulerConfig scheduler;  // num_gpu_blocks must be set
  Deployment deployment;
  uint64_t seed = 0;
  int32_t data_parallel_size = 1;
  RoutingPolicy routing = RoutingPolicy::kRoundRobin;
};

// Figures of one engine (or, summed, of all).
struct EngineTotals {
  int64_t num_steps = 0;
  int64_t peak_waiting = 0;   // longest waiting queue seen after arrivals or a step
  int64_t num_requests = 0;   // client requests routed here
  int64_t num_sequences = 0;  // engine requests routed here (n children one by one)
  int64_t num_preemptions = 0;
  int64_t prefix_queries = 0;  // prefix-cache lookups, in prompt tokens
  int64_t prefix_hits = 0;     // of those, tokens found cached
  int64_t num_gpu_blocks = 0;
};

struct ReplayTotals {
  Nanos end_time = 0;  // when the last request finished (0 for an empty trace)
  std::vector<EngineTotals> engines;
  EngineTotals sum() const;  // peak_waiting is the largest of the engines' peaks
};

struct ReplayHooks {
  // After each completed step of engine `index`.
  std::function<void(size_t index, const EngineCore& engine)> on_step;
  // Scrapes at 0, interval, 2 x interval, ... up to the first instant at or after the end.
  Nanos scrape_interval = 0;  // 0: no scrapes
  std::function<void(Nanos time)> on_scrape;
};

// Builds the engine request for one trace entry (before fan-out for n > 1).
std::unique_ptr<Request> make_request(const TraceRequest& entry, size_t index);

// Replays the trace; engine i reports its events to observers[i] (one per engine).
ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config,
                        const std::vector<EngineObserver*>& observers,
                        const ReplayHooks& hooks = {});

// One engine, one observer.
ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config, EngineObserver& observer,
                        const std::function<void(const EngineCore&)>& on_step = {});

}  // namespace llm
