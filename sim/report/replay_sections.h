// The sections of a replay's HTML report: over trace time, requests running and waiting,
// KV-cache usage, preemptions, token throughput and per-engine load; the CDFs of TTFT, TPOT, ITL
// and E2E with p50/p90/p99 marked. Also the headline figures of a summary, for any report's header.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/replay/replay_report.h"
#include "sim/report/html_report.h"
#include "sim/report/replay_series.h"

namespace llm {

// Points per plotted time series and per CDF: bounds a report's size whatever the trace length.
inline constexpr size_t kMaxSeriesPoints = 600;
inline constexpr size_t kMaxCdfPoints = 200;

// "Over time" and "Latency distributions" (each CDF marks the summary's p50, p90 and p99).
std::vector<ReportSection> replay_sections(const ReplayTimeSeries& series, const LatencyCdfs& cdfs,
                                           const ReplaySummary& summary);

// Requests, duration, throughput, TTFT/TPOT/ITL/E2E p50 and p99, preemptions, peak KV usage.
std::vector<std::pair<std::string, std::string>> summary_facts(const ReplaySummary& summary);

// The whole report of `llmsim replay`.
// The replay's report as a struct, for commands that add sections (llmsim alerts).
HtmlReport replay_html_report(const std::string& command_line, const std::string& trace_name,
                              const ReplaySummary& summary, const ReplayTimeSeries& series,
                              const LatencyCdfs& cdfs);
std::string render_replay_report(const std::string& command_line, const std::string& trace_name,
                                 const ReplaySummary& summary, const ReplayTimeSeries& series,
                                 const LatencyCdfs& cdfs);

}  // namespace llm
