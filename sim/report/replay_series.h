// What the replay report plots, read from what a replay already records: the simulated
// Prometheus series of sim/replay/metrics_recorder.h (per engine, at each --scrape-interval) and
// the per-request samples of sim/replay/replay_report.h. Thread-safety: pure functions over
// finished recorders.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/replay/metrics_recorder.h"
#include "sim/replay/replay_report.h"
#include "sim/report/series_shaping.h"

namespace llm {

// One engine's gauges and counters at each scrape.
struct EngineSeries {
  std::vector<double> running;            // vllm:num_requests_running
  std::vector<double> waiting;            // vllm:num_requests_waiting
  std::vector<double> kv_usage;           // vllm:kv_cache_usage_perc (0..1)
  std::vector<double> preemptions;        // vllm:num_preemptions_total
  std::vector<double> prompt_tokens;      // vllm:prompt_tokens_total
  std::vector<double> generation_tokens;  // vllm:generation_tokens_total
};

struct ReplayTimeSeries {
  std::vector<double> time_s;         // trace time of each scrape
  std::vector<EngineSeries> engines;  // by engine index
};

// The series of every engine (by its engine="i" label). Throws std::logic_error when the
// recorder lacks one of the families.
ReplayTimeSeries replay_time_series(const MetricsRecorder& recorder);

// The latency distributions as CDFs of at most max_points points each (seconds).
struct LatencyCdfs {
  XySeries ttft, tpot, itl, e2e;
};
// `report` must have finished (its samples sorted).
LatencyCdfs latency_cdfs(const ReplayReport& report, size_t max_points);

}  // namespace llm
