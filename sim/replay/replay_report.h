// Turns a replay's engine events into llmsim's outputs: one JSON line per finished request
// (streamed, so memory does not grow with per-token history) and the summary figures printed as a
// table and written as summary.json. The per-sequence samples behind exact percentiles are held in
// memory up to a bound and spilled to a scratch file beyond it (sim/replay/sorted_samples.h), so
// its memory does not grow with the trace either.
// Thread-safety: none; it observes one replay.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/engine_observer.h"
#include "core/sample_stats.h"
#include "sim/api_server/client_times.h"
#include "sim/faults/fault_window.h"
#include "sim/replay/goodput.h"
#include "sim/replay/latency_samples.h"
#include "sim/replay/overload.h"
#include "sim/replay/replay.h"
#include "sim/trace/load_scaling.h"

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
  // With the API server modelled (ReplayConfig::api_server): what the client measures, from the
  // request reaching the server to its first token, and to its last chunk. Empty (count 0) without.
  Distribution client_ttft, client_e2e;
  int64_t preemptions = 0;
  int64_t prefix_queries = 0;
  int64_t prefix_hits = 0;
  double prefix_hit_rate = 0;
  double peak_kv_usage = 0;
  int64_t peak_waiting = 0;
  int64_t steps = 0;
  int64_t num_gpu_blocks = 0;
  std::vector<ReplaySummary> per_engine;  // with several engines: each one's figures
  // Whether the waiting queue grew without draining (sim/replay/overload.h), and from when.
  OverloadFigures overload;
  // How the trace's load was scaled (--arrival-rate-scale, --load-scaling, --loop-to).
  LoadScalingInfo load;
  // What the run was asked to report beyond the fixed figures: --metric-percentiles (the levels
  // of the table and summary.json; empty: 50, 90, 95, 99, 99.9) and the per-request targets of
  // --slo (ttft=, tpot=, e2e=) that goodput and attainment are counted against.
  std::vector<double> metric_percentiles;
  GoodputTargets goodput;
  // The --fault windows the run was given (summary.json's "faults", each with the seconds of it
  // inside the run: a window after the run's end never ran).
  std::vector<FaultWindow> faults;
  // The samples behind the latency figures (any percentile, the SLO view, goodput); null in the
  // per-engine summaries and in summaries built by hand.
  std::shared_ptr<const LatencySamples> samples;
};

// Refused (rejected) or errored sequences: finish_reasons' "rejected" and "error".
int64_t failed_sequences(const ReplaySummary& summary);
// Their share of all sequences (0 without any).
double error_rate(const ReplaySummary& summary);

// The per-sequence values a report holds in memory for each distribution (and outcomes) before it
// spills them to disk in sorted runs (sim/replay/sorted_samples.h): 104 bytes each for the 7
// latencies, the outcome and the 2 client figures: 13.6 MB.
constexpr size_t kDefaultSamplesInMemory = 131072;

class ReplayReport final : public EngineObserver {
 public:
  // requests_out may be null (no per-request file). `samples_in_memory`: the bound above.
  explicit ReplayReport(std::ostream* requests_out,
                        size_t samples_in_memory = kDefaultSamplesInMemory);

  void on_token(const Request& request, Nanos time, Nanos itl_ns) override;
  void on_tokens(std::span<const TokenEvent> tokens, Nanos time) override;
  void on_preempted(const Request& request) override;
  void on_finished(const Request& request) override;
  void on_step(const StepStats& stats) override;
  // Trace request `entry` (index `index` in the trace) failed at `time` without reaching an
  // engine (a fault: ReplayHooks::on_failed): each of its sequences counts as an `error`, with no
  // token or latency figure, and gets its line.
  void on_failed_request(const TraceRequest& entry, size_t index, Nanos time);

  int64_t num_finished() const { return num_finished_; }
  // Room for this many sequences' samples up front, at most the bound (a long replay grows no
  // vector twice its need).
  void reserve(int64_t sequences);

  // What the client saw of `request`, told just before its on_finished (ReplayHooks::
  // on_client_times): its line then reads arrival_s, ttft_from_arrival_s and e2e_s from these.
  void note_client_times(const Request& request, const ClientTimes& times);

  // Completes the figures once the replay is over.
  ReplaySummary finish(Nanos end_time, const EngineTotals& totals, int64_t trace_requests);

  // The samples behind the figures, for plots, once finish() ran: per-request values (sorted)
  // and the inter-token latency sketch.
  const SortedSamples& ttft_samples() const { return samples_->sorted.at("ttft"); }
  const SortedSamples& tpot_samples() const { return samples_->sorted.at("tpot"); }
  const SortedSamples& e2e_samples() const { return samples_->sorted.at("e2e"); }
  const LogSketch& itl_sketch() const { return itl_; }

 private:
  void write_line(const Request& request, const ClientTimes* client, const char* outcome);
  static const char* outcome(const Request& request);

  std::ostream* out_;
  int64_t num_finished_ = 0;
  int64_t failed_sequences_ = 0;  // of requests that reached no engine
  std::string line_;
  ReplaySummary summary_;
  std::shared_ptr<SpillArea> area_;  // where the samples below spill
  SequenceOutcomes outcomes_;
  int64_t failed_ = 0, failed_gaps_ = 0;
  SampleCollector ttft_, request_ttft_, queue_, prefill_, decode_, e2e_, tpot_;
  SampleCollector client_ttft_, client_e2e_;
  const Request* client_of_ = nullptr;  // the request client_ belongs to
  ClientTimes client_;
  LogSketch itl_;
  std::shared_ptr<const LatencySamples> samples_;  // once finish() ran
};

// The summary as an aligned text table, and as JSON (same figures, stable key order). The table
// gives each latency row in ms, s or min (whichever keeps its largest value under 10,000) and
// the number of samples each row is over.
std::string format_summary_table(const ReplaySummary& summary);
std::string format_summary_json(const ReplaySummary& summary);

// Shortest round-trip decimal text of a double ("null" for NaN/inf), as JSON needs.
std::string json_number(double value);

}  // namespace llm
