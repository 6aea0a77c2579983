// llmbench's run: replays a trace against an OpenAI-compatible HTTP server and measures each
// request on the client side (see metrics.h for the definitions). The HTTP client (Boost.Asio +
// Beast, HTTP/1.1 keep-alive, one pooled connection per request in flight) lives in
// bench_runner.cpp; this header has no Asio in it.
// Thread-safety: run_benchmark runs its own event loop on the calling thread; calls share nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loadgen/metrics.h"
#include "sim/trace/trace.h"

namespace llm::loadgen {

struct BenchConfig {
  std::string host = "127.0.0.1";  // from --base-url
  uint16_t port = 8000;
  std::string base_path;  // the path part of --base-url, without a trailing '/'
  std::string endpoint = "/v1/completions";
  std::string model;  // empty: ask GET /v1/models and take the first
  std::string api_key;
  bool chat = false;      // endpoint is a chat endpoint (messages instead of prompt)
  bool token_ids = true;  // prompt as token ids (completions only)
  bool ignore_eos = true;
  bool stream = true;

  enum class Arrivals { kTrace, kRate, kClosedLoop };
  Arrivals arrivals = Arrivals::kTrace;
  double arrival_rate_scale = 1.0;      // kTrace
  double request_rate = 0;              // kRate, requests/s; infinity: all at once
  int64_t concurrency = 0;              // kClosedLoop: requests in flight
  int64_t max_concurrency = 0;          // kTrace/kRate: cap on requests in flight, 0: none
  std::optional<int64_t> num_requests;  // limit; kRate/kClosedLoop wrap around the trace
  uint64_t seed = 0;
  // Mixed into every generated prompt token when non-zero, prefix-shared positions included:
  // two runs with different salts share no prompt prefix, so a server's prefix cache cannot
  // carry one run's prompts into the next (requests of one run still share what the trace says).
  uint64_t prompt_salt = 0;
  double timeout_s = 0;  // per request, 0: none

  Slos slos;
  size_t errors_shown = 5;
};

struct BenchRun {
  std::vector<RequestResult> results;  // in the order of the planned requests
  BenchReport report;
  std::string model;  // the model name used
};

// The planned sends: trace index and send time (ns after the start), by the config's arrival mode.
struct PlannedRequest {
  size_t trace_index = 0;
  int64_t send_ns = 0;
};
std::vector<PlannedRequest> plan_requests(const Trace& trace, const BenchConfig& config);

// The JSON request body for one trace request (model, prompt or messages, max_tokens,
// ignore_eos, stream, stream_options). `index` varies generated prompts between requests.
std::string build_request_body(const TraceRequest& request, const BenchConfig& config,
                               const std::string& model, uint64_t index);

// Runs the benchmark. Throws std::runtime_error when the base URL cannot be resolved or the model
// cannot be determined; request failures are counted in the report instead.
BenchRun run_benchmark(const Trace& trace, const BenchConfig& config);

}  // namespace llm::loadgen
