// What `llmsim alerts` found, as one struct (AlertsResult: every alert's timeline over the replay
// and the checks asked of it with --expect-fire, --expect-quiet and --fail-on-fire), and its
// written forms from that struct alone: the text (the timeline, then a line per check), the exit
// code the checks give, and the --timeline-json document.
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/alerts/alert_evaluation.h"

namespace llm {

// One check's line ("expect-fire HighQueue: ok (first fired at 5m)") and whether it failed.
struct AlertCheck {
  std::string line;
  bool failed = false;
};

struct AlertsResult {
  std::vector<AlertRuleTimeline> alerts;
  int64_t start_ns = 0;  // trace time 0 (--start-time), Unix ns
  int64_t end_ns = 0;    // the replay's last sample
  std::vector<AlertCheck> checks;
};

// The checks, in order: one per --expect-fire alert (it must fire), one per --expect-quiet alert
// (it must not), and with --fail-on-fire one when any alert fired.
std::vector<AlertCheck> check_alerts(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                     const std::vector<std::string>& expect_fire,
                                     const std::vector<std::string>& expect_quiet,
                                     bool fail_on_fire);

// The text `llmsim alerts` prints: the timeline (format_alert_timeline), then the checks' lines;
// the command writes its files between the two.
std::string format_alerts_timeline(const AlertsResult& result);
std::string format_alert_checks(const AlertsResult& result);
// 1 when a check failed, else 0.
int alerts_exit_code(const AlertsResult& result);
// The --timeline-json document (alert_timeline_json).
std::string alerts_json(const AlertsResult& result);

}  // namespace llm
