// Client-side benchmark figures, defined as `vllm bench serve` defines them (spec section 5):
// client TTFT = send to the first content chunk; ITL = every gap between consecutive content
// chunks; E2E = send to the last content chunk (non-streaming: to the end of the response);
// TPOT = (E2E - TTFT) / (N - 1) per request with N > 1 output tokens; goodput = completed requests
// per second that meet every given SLO. Times are steady-clock nanoseconds per request.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/sample_stats.h"

namespace llm::loadgen {

struct RequestResult {
  bool success = false;
  std::string error;             // why it failed (empty on success)
  int64_t prompt_tokens = 0;     // sent (the trace's prompt length); usage's when the server says
  int64_t output_tokens = 0;     // usage.completion_tokens when present, else content chunks
  int64_t content_chunks = 0;    // chunks with non-empty text
  int64_t send_ns = 0;           // steady clock, relative to the benchmark start
  int64_t ttft_ns = 0;           // send -> first content chunk
  int64_t e2e_ns = 0;            // send -> last content chunk (non-streaming: end of response)
  std::vector<int64_t> itl_ns;   // gaps between consecutive content chunks
};

// SLOs in milliseconds for goodput; absent: not checked.
struct Slos {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::optional<double> e2e_ms;
  bool any() const { return ttft_ms || tpot_ms || e2e_ms; }
};

// Parses "ttft:500" style items (keys ttft, tpot, e2e or e2el; values in ms, >= 0) into `slos`.
// Throws std::invalid_argument with a message naming the bad item.
void parse_slo(const std::string& item, Slos& slos);

struct LatencyStats {  // milliseconds
  int64_t count = 0;
  double mean = 0, std = 0, median = 0, p90 = 0, p99 = 0, max = 0;
};

struct BenchReport {
  int64_t completed = 0;
  int64_t failed = 0;
  double duration_s = 0;
  int64_t total_input_tokens = 0;   // of completed requests
  int64_t total_output_tokens = 0;  // of completed requests
  int64_t total_content_chunks = 0;
  double request_throughput = 0;       // completed / duration
  double output_throughput = 0;        // output tokens / duration
  double total_token_throughput = 0;   // (input + output tokens) / duration
  std::optional<double> request_goodput;  // when SLOs are given
  int64_t good_requests = 0;
  LatencyStats ttft, tpot, itl, e2e;
  std::vector<std::string> errors;  // the first few error messages
  std::vector<std::pair<std::string, int64_t>> error_counts;  // message -> count, most frequent first
  int64_t max_in_flight = 0;
};

// Computes the report from per-request results over the benchmark's wall duration.
BenchReport compute_report(const std::vector<RequestResult>& results, double duration_s,
                           const Slos& slos, size_t errors_kept = 5);

// TPOT in ms of one request by the definition above; 0 when it has one output token or fewer
// (vLLM's goodput check uses 0 for those).
double request_tpot_ms(const RequestResult& r);

// Summary table with each figure's definition, in the layout of `vllm bench serve`.
void print_report(const BenchReport& report, const Slos& slos, std::ostream& out);

// Every figure, with vLLM's result-file key names (mean_ttft_ms, p99_itl_ms, ...).
nlohmann::json report_to_json(const BenchReport& report, const Slos& slos);

}  // namespace llm::loadgen
