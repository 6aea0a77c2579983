// The discrete-event driver of llmsim: replays a trace through one or more EngineCore instances
// (data parallelism, each with its own KV cache, behind a Router) on simulated integer-nanosecond
// time. Events are arrivals (from the trace), step completions (from the mock GPU's cost model) and
// optional metric scrapes. At one instant, step completions come first, then arrivals, then the
// scrape, then idle engines start their next step.
//
// A request arriving while its engine is mid-step is queued when that step completes, as vLLM's
// engine core takes input between steps; an idle engine with a schedulable request always starts a
// step at once (work conservation).
//
// Faults (ReplayFaults, for `llmsim dst`; none by default, and then nothing above changes): client
// aborts at given instants, applied at once on an idle engine and, on a busy one, when its step
// completes (after the requests that arrived during the step are queued, so an abort may find its
// sequence not yet queued); aborts of random unfinished sequences after a step (the engine loop's
// fault point); and the mock GPU's faults (backends/sim/faulty_backend.h: slowdowns, latency
// spikes, failed steps). At one instant the order becomes: step completions (each followed by its
// engine's queued arrivals and aborts), arrivals, client aborts, the scrape, step starts.
// The llm-d routing policies (sim/routing/router.h) see the engines as llm-d's endpoint picker
// does: the replay scrapes every engine's gauges for the router at 0, EppView::scrape_interval, ...
// (right after the step completions of that instant, before its arrivals) and the router routes on
// the samples that are at least EppView::staleness old; no scrape instants are added otherwise.
// Their prefix scorer sees each engine's KV-cache events (core/kv_events.h), applied to an index of
// announced blocks (sim/routing/announced_blocks.h) as each step completes.
// Thread-safety: run_replay is single-threaded and uses no global state.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "backends/sim/cost_model.h"
#include "backends/sim/faulty_backend.h"
#include "core/engine_observer.h"
#include "core/scheduler_config.h"
#include "sim/routing/router.h"
#include "sim/trace/trace.h"

namespace llm {

class EngineCore;

// A simulated client that gives up: at `time` it aborts sequence `child` of trace request
// `request` (an index into Trace::requests), or all of its sequences when child is -1. An abort
// before the request arrived, or of a sequence that already finished, does nothing.
struct ClientAbort {
  Nanos time = 0;
  size_t request = 0;
  int32_t child = -1;
};

// Faults injected into a replay, all drawn from `seed` (see the file comment).
struct ReplayFaults {
  uint64_t seed = 0;
  BackendFaults backend;                // every engine's mock GPU
  std::vector<double> engine_slowdown;  // engine i's steps take this many times longer (1: none)
  std::vector<ClientAbort> aborts;      // any order; applied in time order (stable)
  double loop_abort_probability = 0;    // after each step: abort one random unfinished sequence

  bool any() const;
};

// What llm-d's endpoint picker sees of the engines (the llm-d routing policies only).
struct EppView {
  Nanos scrape_interval = 50'000'000;    // its /metrics scrapes (0: the live state, no scrapes)
  Nanos staleness = 0;                   // it routes on samples at least this old
  std::optional<ScorerWeights> weights;  // replaces the policy's scorer profile
};

struct ReplayConfig {
  SchedulerConfig scheduler;  // num_gpu_blocks must be set
  Deployment deployment;
  uint64_t seed = 0;
  int32_t data_parallel_size = 1;
  RoutingPolicy routing = RoutingPolicy::kRoundRobin;
  EppView epp;
  ReplayFaults faults;  // none by default
};

// Where an aborted sequence was when its abort was applied.
enum class AbortState : uint8_t {
  kUnqueued,   // arrived during a step, not yet queued
  kWaiting,    // queued, never scheduled
  kPreempted,  // waiting again after a preemption
  kPrefill,    // running, computing its prompt (or recomputing after a preemption)
  kDecode,     // running, generating
  kFinished,   // already finished (or refused at arrival): the abort did nothing
};
inline constexpr size_t kNumAbortStates = 6;
const char* abort_state_name(AbortState state);  // "unqueued", "waiting", ...

// What the faults did in a run.
struct FaultTotals {
  int64_t failed_steps = 0;
  int64_t latency_spikes = 0;
  std::array<int64_t, kNumAbortStates> aborts{};  // by AbortState
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
  FaultTotals faults;
  EngineTotals sum() const;  // peak_waiting is the largest of the engines' peaks
};

struct ReplayHooks {
  // After each completed step of engine `index`, once the arrivals and aborts that waited for it
  // are applied.
  std::function<void(size_t index, const EngineCore& engine)> on_step;
  // Trace request `request` was routed to engine `engine` (before its sequences are added).
  std::function<void(size_t request, size_t engine)> on_route;
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
