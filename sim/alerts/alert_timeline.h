// The printed forms of `llmsim alerts`' result: a text timeline (for each alert and label set,
// when it went pending, fired and resolved, in trace time and as UTC timestamps) and the same as
// JSON for scripts and CI.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/alerts/alert_evaluation.h"
#include "sim/time_text.h"  // trace_time_text

namespace llm {

// "2026-01-01T00:01:30Z" (milliseconds shown when not whole: "...:30.250Z").
std::string utc_timestamp_text(int64_t unix_ns);

// Lines the text timeline carries besides the alerts: after its first line (the faults), under
// an alert's header line (its warnings), and after the count of alerts that fired.
struct TimelineNotes {
  std::vector<std::string> header;
  std::map<std::string, std::vector<std::string>> by_alert;
  std::vector<std::string> footer;
};

// start_ns: the trace's start (trace time 0); end_ns: the last evaluation range's end.
std::string format_alert_timeline(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                  int64_t end_ns, const TimelineNotes& notes = {});
// The JSON document, and its text (2-space indented, a final newline).
nlohmann::json alert_timeline_doc(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                  int64_t end_ns);
std::string alert_timeline_json(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                int64_t end_ns);

}  // namespace llm
