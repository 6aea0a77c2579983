// Service-level objectives over a replay's summary figures: `--slo ttft_p99=2s,tpot_p99=100ms`
// parsed into targets, and a summary checked against them. Keys are summary_figures.h's names
// (ttft_p99, e2e_p99.9, queue_p95, preemptions, error_rate, ...). Latency figures (the
// distributions and duration_s) take a value with a unit (s, ms or us) and are kept in seconds;
// the other figures take a plain number. A figure misses its target when it is worse in the
// figure's direction (lower_is_better): above it for latencies, counts and error_rate, below it
// for throughputs, hit rates, attainment and goodput. `KEY<=V` and `KEY>=V` say the direction
// out loud and must agree with it (quote them in a shell: `--slo 'attainment>=0.99'`).
//
// Per-request targets, DistServe's and `vllm bench serve --goodput`'s (sim/replay/goodput.h):
// `ttft=2s`, `tpot=100ms`, `e2e=30s` (no statistic) are not figures but what each request must
// meet to be good; `attainment` (the share of sequences that are good, 0-1) and `goodput` (good
// sequences per second) are checked against them, and need at least one.
//
// Refused and errored requests count against every latency target: a latency SLO is checked over
// every sequence the deployment was asked to serve, each failed one as infinitely slow
// (slo_figure), and each result says over how many sequences it was taken.
// Used by `llmsim replay --slo`, `llmsim capacity` and `llmsim sweep`.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/replay/goodput.h"
#include "sim/replay/replay_report.h"

namespace llm {

struct SloTarget {
  std::string key;           // a summary figure name, or ttft/tpot/e2e for a per-request target
  double target = 0;         // seconds for latency figures, the figure's own unit otherwise
  std::string text;          // the value as written ("2s"), for messages
  bool per_request = false;  // a per-request target of attainment and goodput, not a figure
};

// Parses "KEY=VALUE[,KEY=VALUE...]" (or KEY<=VALUE, KEY>=VALUE). Throws std::invalid_argument
// naming the item at fault: an unknown key (the message lists the accepted ones), a missing or
// bad value, a unit where none belongs or none where one does, a direction the figure does not
// have, a key given twice, an empty list, per-request targets without attainment or goodput and
// the reverse.
std::vector<SloTarget> parse_slo(std::string_view text);

// The per-request targets among `targets` (ttft=, tpot=, e2e=).
GoodputTargets goodput_targets(const std::vector<SloTarget>& targets);

// Whether the figure `key` is a time in seconds (and so takes a unit in an SLO).
bool is_latency_figure(std::string_view key);

struct SloResult {
  std::string key;
  double value = 0;  // slo_figure: refused and errored sequences count as infinitely slow
  double target = 0;
  bool met = false;      // false also when the figure is not a number (no samples)
  int64_t samples = -1;  // latency figures: the sequences (ITL: gaps) it is over, failed included
  int64_t failed = 0;    // of those, refused or errored sequences (ITL: their gaps)
  std::string detail;    // attainment and goodput: the per-request targets and the good count
};

// Each figure target against the summary, in the targets' order (per-request targets are the
// parameters of attainment and goodput, not results of their own).
std::vector<SloResult> check_slo(const ReplaySummary& summary,
                                 const std::vector<SloTarget>& targets);
bool all_met(const std::vector<SloResult>& results);

// One line per target: "slo ttft_p99  1.234 s <= 2 s  met" (ms below one second), followed by
// "(over N sequences, F refused or failed count as missed)" when some failed.
std::string format_slo_results(const std::vector<SloResult>& results);

// "ttft_p99 <= 2 s, tpot_p99 <= 100 ms, attainment >= 0.99 (ttft <= 2 s per request)": the
// targets as a line, for headers and reports.
std::string describe_slo(const std::vector<SloTarget>& targets);

// A figure in its unit for people: "850 ms", "1.5 s", "12" (latencies in s or ms; "inf" when a
// failed request made it infinite).
std::string format_figure(std::string_view key, double value);

}  // namespace llm
