// Finds and reads every recorded run under a path: a `vllm bench serve` result file, an
// inference-perf run folder, a vLLM per-request log folder, BLIS's trainval files, or a folder
// holding any of these at any depth (../shared/gpu-truth reads whole). A run found twice under
// one name (BLIS's trainval and its runs/ folder both hold 20260217-155451) is read once, the
// first found (a folder's own files before its subfolders, subfolders in name order).
// Thread-safety: pure functions over files.
#pragma once

#include <string>
#include <vector>

#include "sim/recorded/recorded_options.h"
#include "sim/recorded/recorded_run.h"

namespace llm {

// Throws TraceError naming file, line and field for a run it cannot read, and for a path that
// holds none.
std::vector<RecordedRun> read_recorded_runs(const std::string& path,
                                            const RecordedOptions& options);

}  // namespace llm
