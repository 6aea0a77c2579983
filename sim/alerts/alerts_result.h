// What `llmsim alerts` found, as one struct (AlertsResult: every alert's timeline over the replay,
// what the replay can tell of each rule (rule_coverage.h), the faults it ran under, and the checks
// asked of it with --expect-fire, --expect-quiet, --fail-on-fire and --strict), and its written
// forms from that struct alone: the text (the timeline with the faults and each rule's warnings,
// then a line per check), the exit code the checks give, and the --timeline-json document.
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/alerts/alert_evaluation.h"
#include "sim/alerts/rule_coverage.h"
#include "sim/faults/fault_window.h"

namespace llm {

// One check's line ("expect-fire HighQueue: ok (first fired at 5m)") and whether it failed.
struct AlertCheck {
  std::string line;
  bool failed = false;
};

struct AlertExpectations {
  std::vector<std::string> expect_fire;   // each must fire
  std::vector<std::string> expect_quiet;  // each must stay quiet, on series it can see
  bool fail_on_fire = false;              // no alert may fire
  bool strict = false;                    // no rule may have a coverage problem
};

struct AlertsResult {
  std::vector<AlertRuleTimeline> alerts;
  int64_t start_ns = 0;                // trace time 0 (--start-time), Unix ns
  int64_t end_ns = 0;                  // the replay's last sample
  std::vector<RuleCoverage> coverage;  // per alerting rule (none: not checked)
  std::vector<FaultWindow> faults;     // the replay's --fault windows
  bool strict = false;                 // coverage problems are errors, not warnings
  std::vector<AlertCheck> checks;
};

// The problems of alert `alert` on this replay (coverage_problems), none when it has no coverage.
std::vector<std::string> alert_problems(const AlertsResult& result, const std::string& alert);
// The alerts with a problem, in file order.
std::vector<std::string> alerts_with_problems(const AlertsResult& result);

// The checks, in order: one per --expect-fire alert (it must fire), one per --expect-quiet alert
// (it must not fire, and every selector of it must match some series: a quiet rule that cannot
// see what it is written for proves nothing), with --fail-on-fire one when any alert fired, and
// with --strict one when any rule has a problem.
std::vector<AlertCheck> check_alerts(const AlertsResult& result, const AlertExpectations& expect);

// The text `llmsim alerts` prints: the timeline (format_alert_timeline, with the faults and each
// rule's problems as "warning: ..." or, with --strict, "error: ..."), then the checks' lines; the
// command writes its files between the two.
std::string format_alerts_timeline(const AlertsResult& result);
std::string format_alert_checks(const AlertsResult& result);
// 1 when a check failed, else 0.
int alerts_exit_code(const AlertsResult& result);
// The --timeline-json document (alert_timeline_json, with "faults", "strict" and per alert
// "unmatched_selectors", "needs_s" and "problems").
std::string alerts_json(const AlertsResult& result);

}  // namespace llm
