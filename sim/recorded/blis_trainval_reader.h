// Reads BLIS's trainval runs as the sim-to-real validation published them: experiments.csv (one
// row per run: folder, exp_id, model, hardware, tp, max_num_batched_tokens), measured.csv (per
// folder and stage, -1 being the whole run: TTFT and E2E mean/p90/p99 and ITL mean, in ms) and
// trainval-exact-config.json (per exp_id: max_num_seqs, total_kv_blocks as vLLM logged it, and the
// inference-perf workload). The trace is rebuilt as inference-perf sends it
// (shared_prefix_load.h); each stage starts after the previous one's measured E2E p99.
// Thread-safety: pure functions over files.
#pragma once

#include <string>
#include <vector>

#include "sim/recorded/recorded_options.h"
#include "sim/recorded/recorded_run.h"

namespace llm {

// True when `dir` holds experiments.csv, measured.csv and trainval-exact-config.json.
bool is_blis_trainval(const std::string& dir);

// Every run listed in experiments.csv, in its order. Throws TraceError naming file, line and
// field.
std::vector<RecordedRun> read_blis_trainval(const std::string& dir, const RecordedOptions& options);

}  // namespace llm
