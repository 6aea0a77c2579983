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
// With ReplayConfig::api_server, a trace request reaches the API server at its arrival and its
// engine when the server has read, tokenized and handed it over (sim/api_server/); at one instant
// those hand-overs come right after the arrivals. A client abort of a request still in the server
// does nothing.
//
// Faults (ReplayFaults; none by default, and then nothing above changes). For `llmsim dst`: client
// aborts at given instants, applied at once on an idle engine and, on a busy one, when its step
// completes (after the requests that arrived during the step are queued, so an abort may find its
// sequence not yet queued); aborts of random unfinished sequences after a step (the engine loop's
// fault point); and the mock GPU's faults (backends/sim/faulty_backend.h: slowdowns, latency
// spikes, failed steps). At one instant the order becomes: step completions (each followed by its
// engine's queued arrivals and aborts), arrivals, client aborts, the scrape, step starts.
// The fault windows of --fault (sim/faults/fault_window.h), on the replay's clock:
// - engine-down: from FROM (or, when the engine is mid-step, from the end of that step) the
//   requests the engine holds (running, waiting, arrived during the step) finish with kError, and
//   it takes no new ones: the router picks among the engines that are up, and a request that
//   arrives while every engine is down fails at once (ReplayHooks::on_failed, status 503). At TO
//   the engine comes back as a restarted server: empty, its prefix cache cleared
//   (ReplayHooks::on_restart, where the metrics recorder restarts its counters).
// - http-5xx: a request arriving in the window is routed as usual, then with the window's
//   probability (a seeded draw per trace request) answered 500 by the API server without reaching
//   the engine (ReplayHooks::on_failed).
// - slow: a step that the engine begins in the window takes FACTOR times as long.
// The driver wakes at every engine-down transition; at one instant they come after the step
// completions and before the arrivals.
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

#include "backends/sim/api_server_costs.h"
#include "backends/sim/cost_model.h"
#include "backends/sim/faulty_backend.h"
#include "core/engine_observer.h"
#include "core/scheduler_config.h"
#include "sim/api_server/client_times.h"
#include "sim/faults/fault_window.h"
#include "sim/routing/router.h"
#include "sim/trace/request_stream.h"
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

// Faults injected into a replay (see the file comment): the dst ones drawn from `seed`, the
// windows' 5xx draws from ReplayConfig::seed.
struct ReplayFaults {
  uint64_t seed = 0;
  BackendFaults backend;                // every engine's mock GPU
  std::vector<double> engine_slowdown;  // engine i's steps take this many times longer (1: none)
  std::vector<ClientAbort> aborts;      // any order; applied in time order (stable)
  double loop_abort_probability = 0;    // after each step: abort one random unfinished sequence
  std::vector<FaultWindow> windows;     // --fault: engine-down, http-5xx and slow windows

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
  // The API server in front of the engines (sim/api_server/api_frontend.h): each request reaches
  // its engine after the server's queueing, HTTP, tokenization and hop, and the client's view of
  // its tokens goes to ReplayHooks::on_client_times. None: requests reach the engine on arrival.
  std::optional<ApiServerCosts> api_server;
  // Its processes (vLLM's --api-server-count); 0: one per engine, as `vllm serve
  // --data-parallel-size N` starts them.
  int32_t api_server_count = 0;
};

// The API processes a replay with `config.api_server` runs: api_server_count, or one per engine.
size_t api_server_processes(const ReplayConfig& config);

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
  int64_t down_errors = 0;   // sequences an engine held when it went down (finished with kError)
  int64_t unroutable = 0;    // trace requests that arrived while every engine was down
  int64_t http_5xx = 0;      // trace requests the API server answered with a 5xx
  int64_t slowed_steps = 0;  // steps begun in a slow window
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
  // With ReplayConfig::api_server: what the client saw of each sequence, as it finishes.
  ClientTimesFn on_client_times;
  // Trace request `request` failed at `time` without reaching an engine: the API server of engine
  // `engine` answered `status` (500, an http-5xx fault), or every engine was down (engine
  // kNoEngine, status 503: no server saw it).
  // `entry` is the trace request.
  std::function<void(size_t request, const TraceRequest& entry, size_t engine, int status,
                     Nanos time)>
      on_failed;
  // Engine `engine` came back at `time` after an engine-down window, as a restarted server.
  std::function<void(size_t engine, Nanos time)> on_restart;
};

inline constexpr size_t kNoEngine = static_cast<size_t>(-1);

// Builds the engine request for one trace entry (before fan-out for n > 1).
std::unique_ptr<Request> make_request(const TraceRequest& entry, size_t index);

// Replays the trace; engine i reports its events to observers[i] (one per engine).
ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config,
                        const std::vector<EngineObserver*>& observers,
                        const ReplayHooks& hooks = {});

// The same, reading the trace as it goes: only the requests in flight are held (with client
// aborts, ReplayFaults::aborts, also 16 bytes per trace request).
ReplayTotals run_replay(RequestStream& trace, const ReplayConfig& config,
                        const std::vector<EngineObserver*>& observers,
                        const ReplayHooks& hooks = {});

// One engine, one observer.
ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config, EngineObserver& observer,
                        const std::function<void(const EngineCore&)>& on_step = {});

}  // namespace llm
