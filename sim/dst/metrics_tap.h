// The per-request file and vLLM's metrics of every engine of a checked replay, and the METRICS
// check at its end: counters and histogram counts equal the sums over the per-request file, and the
// gauges show idle engines. Internal to the checkers of sim/dst/.
// Thread-safety: none; one replay on one thread.
#pragma once

#include <prometheus/registry.h>

#include <cstddef>
#include <memory>
#include <sstream>
#include <vector>

#include "core/observer_tee.h"
#include "core/vllm_metrics.h"
#include "sim/dst/engine_checker.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_report.h"

namespace llm {

// The per-request file and vLLM's metrics of all engines, for the METRICS check.
struct FileSums;

struct MetricsTap {
  MetricsTap(const ReplayConfig& config, const std::vector<EngineChecker*>& checkers);
  // The METRICS check at the end of a run of `sequences` sequences: the per-request file has a
  // line for each, and the metrics agree with its sums.
  void check_end(size_t sequences, bool caching);
  void check(const FileSums& sums, bool caching);
  void check_histograms(const FileSums& sums);

  std::ostringstream jsonl;
  ReplayReport report{&jsonl};
  prometheus::Registry registry;
  VllmMetricFamilies families;
  std::vector<std::unique_ptr<EngineMetrics>> metrics;
  std::vector<std::unique_ptr<ObserverTee>> tees;
};

}  // namespace llm
