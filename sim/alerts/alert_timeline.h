// The printed forms of `llmsim alerts`' result: a text timeline (for each alert and label set,
// when it went pending, fired and resolved, in trace time and as UTC timestamps) and the same as
// JSON for scripts and CI.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/alerts/alert_evaluation.h"

namespace llm {

// Trace time `t_ns - start_ns` as a Prometheus duration: "0s", "5m15s", "1h30m", "1m0s250ms".
std::string trace_time_text(int64_t t_ns, int64_t start_ns);
// "2026-01-01T00:01:30Z" (milliseconds shown when not whole: "...:30.250Z").
std::string utc_timestamp_text(int64_t unix_ns);

// start_ns: the trace's start (trace time 0); end_ns: the last evaluation range's end.
std::string format_alert_timeline(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                  int64_t end_ns);
std::string alert_timeline_json(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                int64_t end_ns);

}  // namespace llm
