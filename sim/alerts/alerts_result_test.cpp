// Tests for alerts_result.h: the checks of --expect-fire, --expect-quiet, --fail-on-fire and
// --strict on hand-built timelines and coverage, their lines, the exit code they give, and the text
// and JSON of a result (faults, warnings, errors).
#include "sim/alerts/alerts_result.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

AlertsResult result_of(std::vector<AlertRuleTimeline> alerts) {
  AlertsResult r;
  r.alerts = std::move(alerts);
  r.start_ns = kStart;
  r.end_ns = kStart + 600 * kS;
  return r;
}

TEST(AlertChecks, ExpectationsAreJudgedInOrderWithTheFirstFiring) {
  const std::vector<AlertCheck> checks =
      check_alerts(result_of(two_alerts()), {{"Fired", "Quiet"}, {"Quiet", "Fired"}, false});
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
  const std::vector<AlertCheck> checks = check_alerts(result_of(two_alerts()), {{}, {}, true});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].line, "fail-on-fire: 1 alert fired\n");
  EXPECT_TRUE(checks[0].failed);
  // Nothing fired: no line, and nothing fails.
  std::vector<AlertRuleTimeline> quiet = two_alerts();
  quiet.erase(quiet.begin());
  EXPECT_TRUE(check_alerts(result_of(quiet), {{}, {}, true}).empty());
}

TEST(AlertsResult, TextChecksExitCodeAndJsonComeFromTheResult) {
  AlertsResult r = result_of(two_alerts());
  r.checks = check_alerts(r, {{"Fired"}, {}, false});
  EXPECT_EQ(format_alerts_timeline(r), format_alert_timeline(r.alerts, r.start_ns, r.end_ns));
  const nlohmann::json doc = nlohmann::json::parse(alerts_json(r));
  EXPECT_EQ(doc["alerts"], alert_timeline_doc(r.alerts, r.start_ns, r.end_ns)["alerts"]);
  EXPECT_EQ(doc["faults"], nlohmann::json::array());
  EXPECT_EQ(format_alert_checks(r), "expect-fire Fired: ok (first fired at 5m)\n");
  EXPECT_EQ(alerts_exit_code(r), 0);
  r.checks = check_alerts(r, {{"Fired"}, {"Fired"}, false});
  EXPECT_EQ(format_alert_checks(r),
            "expect-fire Fired: ok (first fired at 5m)\n"
            "expect-quiet Fired: FAILED, it fired at 5m\n");
  EXPECT_EQ(alerts_exit_code(r), 1);
}

// "Quiet" reads a series the replay lacks; "Fired" needs 20 minutes of a 10-minute replay.
std::vector<RuleCoverage> coverage_of_two() {
  RuleCoverage fired;
  fired.alert = "Fired";
  fired.for_ns = 600 * kS;
  fired.interval_ns = 60 * kS;
  fired.window_ns = 540 * kS;
  RuleCoverage quiet;
  quiet.alert = "Quiet";
  quiet.unmatched = {"vllm:num_preemptions"};
  quiet.interval_ns = 60 * kS;
  return {fired, quiet};
}

TEST(AlertChecks, AQuietRuleThatSeesNothingFailsExpectQuiet) {
  AlertsResult r = result_of(two_alerts());
  r.alerts[1].label_sets.clear();  // Quiet never even went pending
  EXPECT_EQ(check_alerts(r, {{}, {"Quiet"}, false})[0].line, "expect-quiet Quiet: ok\n");
  r.coverage = coverage_of_two();
  const std::vector<AlertCheck> checks = check_alerts(r, {{}, {"Quiet"}, false});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].line,
            "expect-quiet Quiet: FAILED, its quiet proves nothing: vllm:num_preemptions matches no "
            "series of the replay\n");
  EXPECT_TRUE(checks[0].failed);
  // Seeing everything but on too short a replay: ok, with the warning.
  r.coverage[1].unmatched.clear();
  r.coverage[1].for_ns = 600 * kS;
  EXPECT_EQ(check_alerts(r, {{}, {"Quiet"}, false})[0].line,
            "expect-quiet Quiet: ok (warning: the replay is shorter than the 11m it needs)\n");
  r.coverage[1].unmatched = {"vllm:num_preemptions", "vllm:gpu_cache_usage_perc"};
  EXPECT_EQ(check_alerts(r, {{}, {"Quiet"}, false})[0].line,
            "expect-quiet Quiet: FAILED, its quiet proves nothing: vllm:num_preemptions, "
            "vllm:gpu_cache_usage_perc match no series of the replay\n");
}

TEST(AlertChecks, StrictFailsWhenAnyRuleCannotBeJudged) {
  AlertsResult r = result_of(two_alerts());
  r.coverage = coverage_of_two();
  EXPECT_TRUE(check_alerts(r, {{}, {}, false, false}).empty());  // warnings only
  std::vector<AlertCheck> checks = check_alerts(r, {{}, {}, false, true});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].line,
            "strict: FAILED, 2 rules cannot be judged on this replay: Fired, Quiet\n");
  EXPECT_TRUE(checks[0].failed);
  // A long enough replay that sees every selector passes --strict.
  r.coverage[1].unmatched.clear();
  r.end_ns = kStart + 1200 * kS;
  EXPECT_TRUE(check_alerts(r, {{}, {}, false, true}).empty());
  EXPECT_EQ(alerts_with_problems(r), std::vector<std::string>{});
}

TEST(AlertsResult, TheTimelineShowsFaultsAndEachRulesProblems) {
  AlertsResult r = result_of(two_alerts());
  r.coverage = coverage_of_two();
  r.faults = {parse_fault("engine-down:1:2m:6m")};
  const std::string text = format_alerts_timeline(r);
  for (const char* line :
       {"fault engine-down:1:2m:6m: engine 1 down from 2m to 6m\n",
        "\nFired (group , every 0s, for 0s): FIRED\n  warning: the replay (10m) is shorter than "
        "the 20m this rule needs to mean something (for 10m + interval 1m + window 9m)\n",
        "\nQuiet (group , every 0s, for 0s): pending only\n  warning: selector "
        "vllm:num_preemptions matches no series of the replay",
        "\n1 of 2 alerts fired\n2 of 2 rules cannot be judged on this replay (warnings above)\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n--- in ---\n" << text;
  }
  r.strict = true;
  EXPECT_NE(format_alerts_timeline(r).find("  error: selector vllm:num_preemptions"),
            std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(alerts_json(r));
  EXPECT_EQ(doc["faults"][0]["spec"], "engine-down:1:2m:6m");
  EXPECT_EQ(doc["faults"][0]["engine"], 1);
  EXPECT_EQ(doc["faults"][0]["from_s"], 120.0);
  EXPECT_EQ(doc["strict"], true);
  EXPECT_EQ(doc["alerts"][0]["needs_s"], 1200.0);
  EXPECT_EQ(doc["alerts"][1]["unmatched_selectors"][0], "vllm:num_preemptions");
  EXPECT_EQ(doc["alerts"][1]["problems"].size(), 1u);
}

}  // namespace
}  // namespace llm
