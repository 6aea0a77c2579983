// `llmsim calibrate --url`: measures any running OpenAI-compatible server (llmserve or vLLM) from
// outside, with designed probe workloads sent through llmbench's client (loadgen/):
//  - single requests of several prompt lengths, one at a time, for the cost of a prefill step
//    (the server's vllm:request_prefill_time_seconds where /metrics has it, else client TTFT);
//  - waves of b requests at once with prompts of c tokens, for the cost of a decode step at
//    batch b (vllm:request_decode_time_seconds per output token, else client ITL).
// It reads the KV cache's block count and size from vllm:cache_config_info and the context length
// from /v1/models, and assumes what it cannot see (the batch limits, whether the server schedules
// asynchronously: vLLM does by default, llmserve does not), listing each assumption.
// It refuses to fit when the server is down, answers errors, or does not honour max_tokens with
// ignore_eos (the probes need exact output lengths).
// Thread-safety: none; one thread drives a calibration.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/engine_profile.h"
#include "calibrate/step_fit.h"
#include "loadgen/bench.h"

namespace llm {

struct HttpProbeOptions {
  loadgen::BenchConfig target;  // host, port, base path, api key; model ("" = the first served)
  int repeats = 3;
  bool quick = false;
  std::optional<int64_t> max_num_seqs;            // assumed 256 when not given
  std::optional<int64_t> max_num_batched_tokens;  // assumed 2048 when not given
  std::optional<bool> async_scheduling;           // assumed from the server's kind
  std::optional<int64_t> num_gpu_blocks;          // when /metrics does not say
  std::function<void(const std::string& probe, int done, int total)> progress;
};

struct HttpCalibration {
  std::vector<StepSample> samples;
  EngineProfile facts;  // everything but the step model and the fit
  std::vector<std::string> assumptions;
};

// Throws std::runtime_error with what went wrong (unreachable, HTTP errors, output lengths not
// honoured, no KV block count).
HttpCalibration probe_server(const HttpProbeOptions& options);

}  // namespace llm
