// The figures of a replay summary by name, as SLOs, sweep objectives and capacity searches refer
// to them: `<distribution>_<statistic>` for the latency distributions (ttft, request_ttft, queue,
// prefill, decode, e2e, itl, tpot; seconds, keyed as summary.json's distributions without their
// "_s") with the statistic mean, max or any percentile as people write it: p50, p90, p95, p99,
// p99.9, p75, p99.99 (pN, 0 <= N <= 100); and the scalar figures under their summary.json names
// (preemptions, peak_kv_usage, output_tokens_per_s, error_rate, attainment, goodput, unstable,
// ...).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/replay/replay_report.h"

namespace llm {

// A parsed figure name.
struct FigureName {
  std::string distribution;  // empty for a scalar figure
  std::string statistic;     // "mean", "max" or "pN" (distributions only)
  double level = -1;         // N of a percentile (0-100), else -1
};

// The parse of `key`, or nullopt when no figure has that name.
std::optional<FigureName> parse_figure_name(std::string_view key);

// The figure named `key` as the summary reports it (over the samples recorded), or nullopt when no
// figure has that name. A percentile other than p50, p90, p95, p99 and p99.9 is read from the
// summary's samples (NaN without them); attainment and goodput need the summary's per-request
// targets (NaN without them).
std::optional<double> summary_figure(const ReplaySummary& summary, std::string_view key);

// The same as an SLO is checked against: a latency figure over every sequence the deployment was
// asked to serve, each refused or errored one counted as infinitely slow (latency_samples.h), so
// that refusing requests cannot meet a latency target. Other figures are summary_figure's.
std::optional<double> slo_figure(const ReplaySummary& summary, std::string_view key);

// The samples a latency figure is over, with (count_failed) or without the failed sequences; -1
// for a figure that is not a latency distribution's.
int64_t figure_samples(const ReplaySummary& summary, std::string_view key, bool count_failed);

// Every name with a fixed statistic (mean, p50, p90, p95, p99, p99.9, max) and every scalar, in a
// stable order (error messages, sweep.csv's columns).
const std::vector<std::string>& summary_figure_keys();

// Whether a smaller value of the figure is the better one (latencies, preemptions, waiting,
// error_rate); false for throughputs, goodput, attainment and the prefix-cache hit rate.
bool lower_is_better(std::string_view key);

// "p99.9" for 99.9, "p50" for 50.
std::string percentile_name(double level);

}  // namespace llm
