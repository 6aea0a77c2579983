// Turns a replay's engine events into llmsim's outputs: one JSON line per finished request
// (streamed, so memory does not grow with per-token history) and the summary figures printed as a
// table and written as summary.json.
// Thread-safety: none; it observes one replay.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "core/engine_observer.h"
#include "core/sample_stats.h"
#include "sim/replay/replay.h"

namespace llm {

struct ReplaySummary {
  int64_t requests = 0;   // trace requests (client requests)
  int64_t sequences = 0;  // engine requests (n children counted one by one)
  // stop, length, abort, error, and rejected: refused as vLLM's frontend would (a 400), e.g. a
  // prompt that does not fit the context; those count in no token or latency figure.
  std::map<std::string, int64_t> finish_reasons;
  double duration_s = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  double input_tokens_per_s = 0;
  double output_tokens_per_s = 0;
  // Seconds. ttft = first token - arrival (Prometheus); request_ttft = first token - scheduled.
  Distribution ttft, request_ttft, queue, prefill, decode, e2e, itl, tpot;
  int64_t preemptions = 0;
  int64_t prefix_queries = 0;
  int64_t prefix_hits = 0;
  double prefix_hit_rate = 0;
  double peak_kv_usage = 0;
  int64_t peak_waiting = 0;
  int64_t steps = 0;
  int64_t num_gpu_blocks = 0;
  std::vector<ReplaySummary> per_engine;  // with several engines: each one's figures
};

class ReplayReport final : public EngineObserver {
 public:
  // requests_out may be null (no per-request file).
  explicit ReplayReport(std::ostream* requests_out);

  void on_token(const Request& request, Nanos time, Nanos itl_ns) override;
  void on_preempted(const Request& request) override;
  void on_finished(const Request& request) override;
  void on_step(const StepStats& stats) override;

  int64_t num_finished() const { return num_finished_; }

  // Completes the figures once the replay is over.
  ReplaySummary finish(Nanos end_time, const EngineTotals& totals, int64_t trace_requests);

  // The samples behind the figures, for plots: per-request values (sorted once finish() ran)
  // and the inter-token latency sketch.
  const ExactSamples& ttft_samples() const { return ttft_; }
  const ExactSamples& tpot_samples() const { return tpot_; }
  const ExactSamples& e2e_samples() const { return e2e_; }
  const LogSketch& itl_sketch() const { return itl_; }

 private:
  void write_line(const Request& request);
  static const char* outcome(const Request& request);

  std::ostream* out_;
  int64_t num_finished_ = 0;
  std::string line_;
  ReplaySummary summary_;
  ExactSamples ttft_, request_ttft_, queue_, prefill_, decode_, e2e_, tpot_;
  LogSketch itl_;
};

// The summary as an aligned text table, and as JSON (same figures, stable key order).
std::string format_summary_table(const ReplaySummary& summary);
std::string format_summary_json(const ReplaySummary& summary);

// Shortest round-trip decimal text of a double ("null" for NaN/inf), as JSON needs.
std::string json_number(double value);

}  // namespace llm
