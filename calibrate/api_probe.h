// `llmsim calibrate`'s API-server probe: what a server's front end costs a request, measured from
// outside (llmserve or vLLM, through /v1/completions and /metrics). For each of a few prompt
// lengths it sends single streaming requests one after another (the engine idle, so no request
// waits for another's step) and reads, per request:
//  - the hop: the server's TTFT histogram (first token - arrival, the body read) less its queue
//    and prefill histograms (scheduled - queued, first token - scheduled): queued - arrival, the
//    time from the body read to the engine's queue (tokenization and the hand-over);
//  - the response: the client's TTFT less the server's: the request's way in before the body was
//    read and the first token's way out (detokenize, SSE, network, the client's parse).
// The hop is fitted against the prompt length (the tokenization's per-token cost); the response
// is their mean. These become the profile's api_server block (ApiServerCosts): request_ns and
// per_output_token_ns stay 0 (a multi-threaded front end like llmserve's holds no single
// process per token; for vLLM the GPU presets carry fitted ones).
// Thread-safety: none; one thread drives a probe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/sim/api_server_costs.h"
#include "loadgen/bench.h"

namespace llm {

struct ApiProbeOptions {
  loadgen::BenchConfig target;  // host, port, model, api key
  int requests_per_length = 5;
  int64_t max_prompt_len = 1024;  // the longest probe prompt (bounded by the context)
  int64_t output_tokens = 8;
  std::function<void(int done, int total)> progress;
};

struct ApiProbeLength {
  int64_t prompt_len = 0;
  double hop_ms = 0;       // mean queued - arrival
  double response_ms = 0;  // mean client TTFT - server TTFT
};

struct ApiProbeResult {
  ApiServerCosts costs;
  std::vector<ApiProbeLength> lengths;
};

// The costs of the measured lengths: the hop's least-squares line against the prompt length
// (hop_ns its value at no tokens, per_prompt_token_ns its slope, both kept >= 0) and the mean
// response. Throws std::invalid_argument for no lengths.
ApiServerCosts fit_api_costs(const std::vector<ApiProbeLength>& lengths);

// Throws std::runtime_error when the server is unreachable, fails a request, or has no vLLM
// histograms in /metrics (the probe needs vllm:time_to_first_token_seconds,
// vllm:request_queue_time_seconds and vllm:request_prefill_time_seconds).
ApiProbeResult probe_api_server(const ApiProbeOptions& options);

}  // namespace llm
