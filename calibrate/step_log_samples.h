// The steps of a serving engine's own step log (llmserve --step-log) as samples for the step-model
// fit, so that `llmsim calibrate --step-log` fits the cost of steps as the server ran them under
// real traffic (its I/O threads and the clients sharing the cores, caches gone cold between
// requests) rather than as designed probes run alone. A real backend's step costs its measured
// execute() time; a simulated one's its modelled time (its execute() returns at once).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/sim/step_record.h"
#include "calibrate/step_fit.h"

namespace llm {

// The samples of `engine`'s steps (every engine's when engine < 0), in log order; steps with no
// time are left out.
std::vector<StepSample> step_log_samples(const std::vector<StepRecord>& steps, int64_t engine);

}  // namespace llm
