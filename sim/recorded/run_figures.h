// The figures of a run from its per-request values (milliseconds): mean, p50, p90 and p99 of
// TTFT and E2E, mean, p50 and p90 of TPOT, percentiles interpolated as numpy's default
// (sim/sample_stats.h), as inference-perf and vllm bench serve compute theirs.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "sim/recorded/recorded_run.h"

namespace llm {

RunFigures figures_of_samples(std::vector<double> ttft_ms, std::vector<double> e2e_ms,
                              std::vector<double> tpot_ms);

}  // namespace llm
