// Service-level objectives over a replay's summary figures: `--slo ttft_p99=2s,tpot_p99=100ms`
// parsed into targets, and a summary checked against them. Keys are summary_figures.h's names
// (ttft_p99, e2e_p50, preemptions, peak_kv_usage, ...). Latency figures (the distributions and
// duration_s) take a value with a unit (s, ms or us) and are kept in seconds; the other figures
// take a plain number. A figure misses its target when it is worse in the figure's direction
// (lower_is_better): above it for latencies and counts, below it for throughputs and hit rates.
// Used by `llmsim replay --slo`, `llmsim capacity` and `llmsim sweep`.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/replay/replay_report.h"

namespace llm {

struct SloTarget {
  std::string key;    // a summary figure name
  double target = 0;  // seconds for latency figures, the figure's own unit otherwise
  std::string text;   // the value as written ("2s"), for messages
};

// Parses "KEY=VALUE[,KEY=VALUE...]". Throws std::invalid_argument naming the item at fault: an
// unknown key (the message lists the accepted ones), a missing or bad value, a unit where none
// belongs or none where one does, a key given twice, or an empty list.
std::vector<SloTarget> parse_slo(std::string_view text);

// Whether the figure `key` is a time in seconds (and so takes a unit in an SLO).
bool is_latency_figure(std::string_view key);

struct SloResult {
  std::string key;
  double value = 0;  // the summary's figure
  double target = 0;
  bool met = false;  // false also when the figure is not a number (no samples)
};

// Each target against the summary, in the targets' order.
std::vector<SloResult> check_slo(const ReplaySummary& summary,
                                 const std::vector<SloTarget>& targets);
bool all_met(const std::vector<SloResult>& results);

// One line per target: "slo ttft_p99  1.234 s <= 2 s  met" (ms below one second).
std::string format_slo_results(const std::vector<SloResult>& results);

// A figure in its unit for people: "850 ms", "1.5 s", "12" (latencies in s or ms).
std::string format_figure(std::string_view key, double value);

}  // namespace llm
