// The steps of a serving engine's own step log (llmserve --step-log) as samples for the step-model
// fit, so that `llmsim calibrate --step-log` fits the cost of steps as the server ran them under
// real traffic (its I/O threads and the clients sharing the cores, caches gone cold between
// requests) rather than as designed probes run alone. A real backend's step costs its measured
// execute() time; a simulated one's its modelled time (its execute() returns at once). To that
// comes the host time until the engine's next step starts (its outputs sent, the next batch
// scheduled: the step record's gap_ns) when that gap is shorter than a limit; a longer gap is the
// engine waiting for work, and is left out. A simulated engine runs its steps back to back, so a
// profile that leaves the host time out predicts every latency low by that share (on a tiny model
// whose steps take 1 ms, a quarter).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/sim/step_record.h"
#include "calibrate/step_fit.h"

namespace llm {

// The samples of `engine`'s steps (every engine's when engine < 0), in log order; steps with no
// time are left out. Each takes the gap before the same engine's next step when 0 <= gap <
// gap_limit_ns (gap_limit_ns <= 0: no gaps).
std::vector<StepSample> step_log_samples(const std::vector<StepRecord>& steps, int64_t engine,
                                         Nanos gap_limit_ns = 0);

}  // namespace llm
