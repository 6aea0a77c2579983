// Tests for alerts_result.h: the checks of --expect-fire, --expect-quiet and --fail-on-fire on
// hand-built timelines, their lines, the exit code they give, and the text and JSON of a result.
#include "sim/alerts/alerts_result.h"

#include <gtest/gtest.h>

#include "sim/alerts/alert_timeline.h"
#include "sim/alerts/testing/alert_times.h"

namespace llm {
namespace {

using testing::kS;
using testing::kStart;

// Alert "Fired" fired at 5m on one label set (pending from 4m) and at 9m5s on another; "Quiet"
// only went pending.
std::vector<AlertRuleTimeline> two_alerts() {
  AlertRuleTimeline fired;
  fired.alert = "Fired";
  fired.label_sets.resize(2);
  fired.label_sets[0].episodes.push_back({kStart + 540 * kS, kStart + 545 * kS, std::nullopt});
  fired.label_sets[1].episodes.push_back({kStart + 240 * kS, kStart + 300 * kS, std::nullopt});
  AlertRuleTimeline quiet;
  quiet.alert = "Quiet";
  quiet.label_sets.resize(1);
  quiet.label_sets[0].episodes.push_back({kStart + 60 * kS, std::nullopt, kStart + 90 * kS});
  return {fired, quiet};
}

TEST(AlertChecks, ExpectationsAreJudgedInOrderWithTheFirstFiring) {
  const std::vector<AlertCheck> checks =
      check_alerts(two_alerts(), kStart, {"Fired", "Quiet"}, {"Quiet", "Fired"}, false);
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].line, "expect-fire Fired: ok (first fired at 5m)\n");
  EXPECT_FALSE(checks[0].failed);
  EXPECT_EQ(checks[1].line, "expect-fire Quiet: FAILED, it never fired\n");
  EXPECT_TRUE(checks[1].failed);
  EXPECT_EQ(checks[2].line, "expect-quiet Quiet: ok\n");
  EXPECT_FALSE(checks[2].failed);
  EXPECT_EQ(checks[3].line, "expect-quiet Fired: FAILED, it fired at 5m\n");
  EXPECT_TRUE(checks[3].failed);
}

TEST(AlertChecks, FailOnFireCountsTheAlertsThatFired) {
  const std::vector<AlertCheck> checks = check_alerts(two_alerts(), kStart, {}, {}, true);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].line, "fail-on-fire: 1 alert fired\n");
  EXPECT_TRUE(checks[0].failed);
  // Nothing fired: no line, and nothing fails.
  std::vector<AlertRuleTimeline> quiet = two_alerts();
  quiet.erase(quiet.begin());
  EXPECT_TRUE(check_alerts(quiet, kStart, {}, {}, true).empty());
}

TEST(AlertsResult, TextChecksExitCodeAndJsonComeFromTheResult) {
  AlertsResult r;
  r.alerts = two_alerts();
  r.start_ns = kStart;
  r.end_ns = kStart + 600 * kS;
  r.checks = check_alerts(r.alerts, r.start_ns, {"Fired"}, {}, false);
  EXPECT_EQ(format_alerts_timeline(r), format_alert_timeline(r.alerts, r.start_ns, r.end_ns));
  EXPECT_EQ(alerts_json(r), alert_timeline_json(r.alerts, r.start_ns, r.end_ns));
  EXPECT_EQ(format_alert_checks(r), "expect-fire Fired: ok (first fired at 5m)\n");
  EXPECT_EQ(alerts_exit_code(r), 0);
  r.checks = check_alerts(r.alerts, r.start_ns, {"Fired"}, {"Fired"}, false);
  EXPECT_EQ(format_alert_checks(r),
            "expect-fire Fired: ok (first fired at 5m)\n"
            "expect-quiet Fired: FAILED, it fired at 5m\n");
  EXPECT_EQ(alerts_exit_code(r), 1);
}

}  // namespace
}  // namespace llm
