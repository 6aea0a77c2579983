// Runs the points of `llmsim sweep`: each point's replay, exactly as `llmsim replay` computes its
// summary (the same ReplayOptions through make_replay_config, the same observers), spread over
// worker threads. Points are independent: a replay shares nothing mutable with another (the
// trace is read once and only read; each run has its own engines, clock and reports), so the
// results do not depend on the number of threads.
// Thread-safety: run_sweep_points calls `on_progress` from worker threads, one at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "sim/cli/replay_command.h"
#include "sim/sweep_results.h"
#include "sim/trace.h"

namespace llm {

// The summary `llmsim replay` would write to summary.json for `options` on `trace` (the trace as
// read, before --arrival-rate-scale), calling `progress` after each step as execute_replay does.
// `also` (optional) observes every engine too (llmsim capacity's busiest-hour figures).
// Throws what the replay throws.
ReplaySummary summarize_replay(const ReplayOptions& options, const Trace& trace,
                               const ProgressFn& progress = {}, EngineObserver* also = nullptr);

// Runs every point of `results` whose error is empty, with its options (options[i] for
// results[i]), on `jobs` threads (at least one), filling summary and ok, or error when the replay
// throws. `on_progress(done, total)` now and then, in sequences finished over all the points to
// run; done never decreases and ends at total (a point that fails counts as done).
void run_sweep_points(const Trace& trace, const std::vector<ReplayOptions>& options,
                      std::vector<SweepPointResult>& results, int jobs,
                      const ProgressFn& on_progress = {});

}  // namespace llm
