// The five per-request timing fields of the API's `metrics` object, computed from a request's
// timeline exactly as docs/metrics.md states (from vLLM's contract), with their null rules.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>

#include "core/request.h"

namespace llm {

struct PerRequestMetrics {
  std::optional<double> time_to_first_token_ms;  // first_token - scheduled (excludes queueing)
  std::optional<double> generation_time_ms;      // last_token - first_token
  std::optional<double> queue_time_ms;           // scheduled - queued
  std::optional<double> mean_itl_ms;             // (last - first) / (N - 1); null when N <= 1
  std::optional<double> tokens_per_second;       // N / (last - scheduled); 0.0 when N = 0
};

// num_output_tokens is N, the request's completion tokens.
PerRequestMetrics compute_per_request_metrics(const Timeline& t, int64_t num_output_tokens);

// Prometheus-side intervals in seconds (each nullopt when an endpoint is unknown).
struct RequestIntervals {
  std::optional<double> ttft_s;       // first_token - arrival (includes queueing)
  std::optional<double> queue_s;      // scheduled - queued
  std::optional<double> prefill_s;    // first_token - scheduled
  std::optional<double> decode_s;     // last_token - first_token
  std::optional<double> inference_s;  // last_token - scheduled
  std::optional<double> e2e_s;        // finished - arrival
  std::optional<double> tpot_s;       // (last - first) / (N - 1); N > 1 only
};

RequestIntervals compute_intervals(const Timeline& t, int64_t num_output_tokens);

}  // namespace llm
