// The figures of a replay summary by name, as SLOs, sweep objectives and capacity searches refer
// to them: `<distribution>_<statistic>` for the latency distributions (ttft_p99, tpot_p50,
// e2e_mean, queue_max, ...; seconds, keyed as summary.json's distributions without their "_s")
// and the scalar figures under their summary.json names (preemptions, peak_kv_usage,
// output_tokens_per_s, ...).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/replay/replay_report.h"

namespace llm {

// The figure named `key`, or nullopt when no figure has that name.
std::optional<double> summary_figure(const ReplaySummary& summary, std::string_view key);

// Every accepted name, in a stable order (for error messages and listings).
const std::vector<std::string>& summary_figure_keys();

// Whether a smaller value of the figure is the better one (latencies, preemptions, waiting);
// false for throughputs and the prefix-cache hit rate.
bool lower_is_better(std::string_view key);

}  // namespace llm
