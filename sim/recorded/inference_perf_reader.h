// Reads an inference-perf run folder as the BLIS validation published it: profile.yaml (the
// client's load: `shared_prefix` data and a `constant` load, in YAML's JSON form),
// exp-config.yaml (the server: model, tensor_parallelism, max_model_len, max_num_batched_tokens,
// max_num_seqs) and results/stage_N_lifecycle_metrics.json (per stage: TTFT, E2E, TPOT and ITL
// at the client, failures) with results/summary_lifecycle_metrics.json for the whole run. Where
// results/config.yaml (the configuration inference-perf ran with) has a shared_prefix block, its
// prompt groups are the ones rebuilt: older inference-perf ignored profile.yaml's names for them.
// The trace is rebuilt as the generator sends it (shared_prefix_load.h); each stage starts after
// the previous one's slowest measured request (its E2E max); requests that failed with a
// client timeout are aborted at the same timeout.
// Thread-safety: pure functions over files.
#pragma once

#include <cstdint>
#include <string>

#include "sim/recorded/recorded_options.h"
#include "sim/recorded/recorded_run.h"

namespace llm {

// True when `dir` holds profile.yaml and exp-config.yaml.
bool is_inference_perf_run(const std::string& dir);

// Throws TraceError naming the file and field for what it cannot read.
RecordedRun read_inference_perf_run(const std::string& dir, const RecordedOptions& options);

// The figures of one lifecycle metrics file (seconds in it, milliseconds out), and its failures.
// TPOT and ITL are per output token: the file's are per line of the SSE stream (two per token),
// converted for requests of `output_len` tokens.
struct LifecycleFigures {
  RunFigures figures;
  int64_t successes = 0;
  int64_t failures = 0;
  double failure_latency_min_s = 0;  // the quickest failed request (a timeout)
  double e2e_max_s = 0;
};
LifecycleFigures read_lifecycle_metrics(const std::string& path, int64_t output_len);

}  // namespace llm
