// Reads a `vllm bench serve --save-result --save-detailed` JSON file (vLLM's
// vllm/benchmarks/serve.py writes it): per request input_lens, output_lens, ttfts and latencies
// (seconds, at the client), errors ("" for a success) and, where the vLLM records them,
// start_times (the client's send times); the load as request_rate ("inf": all at once),
// burstiness (gamma-distributed gaps of that shape; 1 is Poisson) and max_concurrency. Arrivals
// are the recorded send times, else drawn from the rate and burstiness (seeded; vLLM's own draw
// cannot be reproduced). A closed loop (max_concurrency) without send times is refused. The
// engine's arguments are not in the file: they come from the command line (--gpu, --model and
// engine flags). Failed requests are left out of the trace and the figures.
// Thread-safety: pure functions over files.
#pragma once

#include <string>

#include "sim/recorded/recorded_options.h"
#include "sim/recorded/recorded_run.h"

namespace llm {

// True when the file is a JSON object with vllm bench serve's per-request arrays.
bool is_vllm_bench_result(const std::string& path);

// Throws TraceError naming the file and field.
RecordedRun read_vllm_bench_result(const std::string& path, const RecordedOptions& options);

}  // namespace llm
