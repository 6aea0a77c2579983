// Reads a vLLM run recorded per request, as LLMServingSim published its RTX PRO 6000 run:
// vllm/requests.jsonl (per request: input and output tokens, and vLLM's own timestamps: queued,
// scheduled, first and last token, on the engine's monotonic clock), vllm/meta.json (the engine's
// arguments) and trace.csv (what the client sent: arrival in ns from the start, lengths, and the
// prompt's 16-token block hash chain). The measured figures start where vLLM's timestamps do, at
// the engine's queue (MeasuredView::kEngine): TTFT = first - queued, E2E = last - queued, TPOT =
// (last - first) / (N - 1). The card comes from the folder's config.json (LLMServingSim's
// cluster file) unless --gpu names it.
// Thread-safety: pure functions over files.
#pragma once

#include <string>

#include "sim/recorded/recorded_options.h"
#include "sim/recorded/recorded_run.h"

namespace llm {

// True when `dir` holds vllm/requests.jsonl, vllm/meta.json and trace.csv.
bool is_vllm_request_log(const std::string& dir);

// Throws TraceError naming file, line and field.
RecordedRun read_vllm_request_log(const std::string& dir, const RecordedOptions& options);

}  // namespace llm
