// What one `llmsim replay` run is asked to do: the trace, the engine arguments (shared with
// llmserve), data parallelism and routing, and the outputs; and the mapping from these options to
// a ReplayConfig (presets, KV capacity, vLLM's device-dependent defaults). Parsed from the command
// line by sim/cli/replay_command.h; llmsim sweep and capacity replay many of them.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/resolve_engine_args.h"
#include "core/engine_args.h"
#include "sim/faults/fault_window.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_report.h"
#include "sim/replay/slo.h"
#include "sim/replay/sorted_arrivals.h"
#include "sim/routing/epp_scorers.h"
#include "sim/trace/load_scaling.h"

namespace llm {

struct ReplayOptions {
  std::string trace_path;
  EngineArgs engine;  // the engine arguments shared with llmserve
  // Model the API server in front of the engine where the GPU preset or profile has its costs
  // (--no-api-server: requests reach the engine on arrival, as before).
  bool api_server = true;
  int32_t api_server_count = 0;  // --api-server-count (0: one per engine, as vLLM starts them)
  uint64_t seed = 0;
  double arrival_rate_scale = 1.0;
  LoadScalingMode load_scaling = LoadScalingMode::kStretch;  // --load-scaling
  int64_t loop_to_ns = 0;                                    // --loop-to (0: off)
  // --start / --end: replay only the requests arriving in [start, end) of the trace's clock,
  // moved back by start (-1: no end).
  int64_t window_start_ns = 0;
  int64_t window_end_ns = -1;
  bool sort_arrivals = false;  // --sort-arrivals: sort an out-of-order trace
  // --sort-in-memory: the requests --sort-arrivals sorts in memory before it spills sorted runs
  // to a scratch file (sim/replay/sorted_arrivals.h).
  int64_t sort_in_memory = static_cast<int64_t>(kDefaultSortInMemory);
  int32_t data_parallel_size = 1;
  std::string routing_policy = "round-robin";
  // The llm-d routing policies' view (sim/replay/replay.h EppView); unset: its defaults.
  std::optional<int64_t> epp_scrape_interval_ns;  // --epp-scrape-interval
  std::optional<int64_t> epp_staleness_ns;        // --epp-metrics-staleness
  std::optional<ScorerWeights> epp_weights;       // --epp-scorer-weights
  std::string served_model_name;                  // the model_name label; default: --model
  std::string output_dir;                         // empty: no files
  std::string metrics_out;                        // OpenMetrics time series file
  std::string promtool_series;                    // promtool test input_series file
  std::string metrics_snapshot;                   // the final /metrics text (Prometheus exposition)
  std::string report;                             // the HTML report (sim/report/)
  std::string otlp_out;          // OTLP JSON lines of the requests' spans (docs/tracing.md)
  bool detailed_traces = false;  // --collect-detailed-traces: child spans in --otlp-out
  std::string command_line;      // as typed, for the report's header
  int64_t scrape_interval_ns = 5'000'000'000;
  int64_t start_time_unix_ns = 1'767'225'600'000'000'000;  // 2026-01-01T00:00:00Z
  bool quiet = false;                                      // no summary table on stdout
  bool progress = true;                    // progress bar on stderr when it is a terminal
  std::vector<SloTarget> slo;              // --slo: printed against the summary's figures
  std::vector<double> metric_percentiles;  // --metric-percentiles (0-100; empty: the default)
  bool fail_on_slo = false;                // exit 1 when an SLO is missed
  std::vector<FaultWindow> faults;  // --fault, in the order given (sim/faults/fault_window.h)
  // --samples-in-memory: the per-sequence samples each report holds before it spills them to
  // disk in sorted runs (sim/replay/replay_report.h).
  int64_t samples_in_memory = static_cast<int64_t>(kDefaultSamplesInMemory);
};

// Resolves presets and defaults into an engine configuration, the faults included. Throws
// UsageError (a fault naming an engine the replay does not have, too).
// `resolved` (optional) receives the resolved engine arguments (KV dtype, model name).
ReplayConfig make_replay_config(const ReplayOptions& options, ResolvedEngine* resolved = nullptr);

// The hook that hands each sequence's client view to `report` (the whole run's) and, with several
// engines, to engine_reports[i] (may be empty).
ClientTimesFn client_times_to(ReplayReport& report, std::vector<ReplayReport*> engine_reports);

// The trace a replay of `options` runs: `trace` with its load scaled (sim/trace/load_scaling.h:
// --arrival-rate-scale, --load-scaling, --loop-to, drawn from --seed). Returns `trace` itself when
// nothing changes it, else `storage` filled with the scaled copy. Throws as scale_load.
const Trace& replayed_trace(const Trace& trace, const ReplayOptions& options, Trace& storage,
                            LoadScalingInfo& info);

// Called now and then during a run with (finished sequences, all sequences so far).
using ProgressFn = std::function<void(int64_t done, int64_t total)>;

}  // namespace llm
