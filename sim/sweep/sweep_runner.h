// Runs the points of `llmsim sweep`: each point's replay, exactly as `llmsim replay` computes its
// summary (sim/replay/summarize_replay.h), spread over the worker pool of parallel replays
// (sim/replay/run_in_parallel.h). Points are independent: a replay shares nothing mutable with
// another (the trace is read once and only read; each run has its own engines, clock and reports),
// so the results do not depend on the number of threads. Thread-safety: run_sweep_points calls
// `on_progress` from worker threads, one at a time.
#pragma once

#include <vector>

#include "sim/replay/replay_options.h"
#include "sim/sweep/sweep_results.h"
#include "sim/trace/trace.h"

namespace llm {

// Runs every point of `results` whose error is empty, with its options (options[i] for
// results[i]), on `jobs` threads (at least one), filling summary and ok, or error when the replay
// throws. `on_progress(done, total)` now and then, in sequences finished over all the points to
// run; done never decreases and ends at total (a point that fails counts as done).
void run_sweep_points(const Trace& trace, const std::vector<ReplayOptions>& options,
                      std::vector<SweepPointResult>& results, int jobs,
                      const ProgressFn& on_progress = {});

}  // namespace llm
