// The summary of one replay, computed exactly as `llmsim replay` computes it (the same
// ReplayOptions through make_replay_config, the same observers) but without its output files:
// what llmsim sweep and capacity replay at each of their points.
// Thread-safety: a replay shares nothing mutable with another (the trace is only read; each run
// has its own engines, clock and reports), so several may run at once on different threads.
#pragma once

#include "core/engine_observer.h"
#include "sim/replay/replay_options.h"
#include "sim/replay/replay_report.h"
#include "sim/trace/trace.h"

namespace llm {

// The summary `llmsim replay` would write to summary.json for `options` on `trace` (the trace as
// read, before --arrival-rate-scale), calling `progress` after each step as execute_replay does.
// `also` (optional) observes every engine too (llmsim capacity's busiest-hour figures).
// Throws what the replay throws.
ReplaySummary summarize_replay(const ReplayOptions& options, const Trace& trace,
                               const ProgressFn& progress = {}, EngineObserver* also = nullptr);

// The sequences of a trace: the sum of its requests' n.
int64_t sequences_of(const Trace& trace);

}  // namespace llm
