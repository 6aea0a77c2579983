#include "sim/alerts/alerts_result.h"

#include <optional>

#include "sim/alerts/alert_timeline.h"

namespace llm {
namespace {

const AlertRuleTimeline* find_alert(const std::vector<AlertRuleTimeline>& alerts,
                                    const std::string& name) {
  for (const auto& a : alerts) {
    if (a.alert == name) return &a;
  }
  return nullptr;
}

std::string first_fired_text(const AlertRuleTimeline& a, int64_t start_ns) {
  std::optional<int64_t> first;
  for (const auto& s : a.label_sets) {
    for (const auto& e : s.episodes) {
      if (e.fired_ns && (!first || *e.fired_ns < *first)) first = e.fired_ns;
    }
  }
  return first ? trace_time_text(*first, start_ns) : "never";
}

}  // namespace

std::vector<AlertCheck> check_alerts(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                     const std::vector<std::string>& expect_fire,
                                     const std::vector<std::string>& expect_quiet,
                                     bool fail_on_fire) {
  std::vector<AlertCheck> checks;
  for (const std::string& n : expect_fire) {
    const AlertRuleTimeline* a = find_alert(alerts, n);
    if (a && a->ever_fired()) {
      checks.push_back(
          {"expect-fire " + n + ": ok (first fired at " + first_fired_text(*a, start_ns) + ")\n",
           false});
    } else {
      checks.push_back({"expect-fire " + n + ": FAILED, it never fired\n", true});
    }
  }
  for (const std::string& n : expect_quiet) {
    const AlertRuleTimeline* a = find_alert(alerts, n);
    if (a && a->ever_fired()) {
      checks.push_back(
          {"expect-quiet " + n + ": FAILED, it fired at " + first_fired_text(*a, start_ns) + "\n",
           true});
    } else {
      checks.push_back({"expect-quiet " + n + ": ok\n", false});
    }
  }
  if (fail_on_fire) {
    int fired = 0;
    for (const auto& a : alerts) fired += a.ever_fired() ? 1 : 0;
    if (fired > 0) {
      checks.push_back({"fail-on-fire: " + std::to_string(fired) + " alert" +
                            (fired == 1 ? "" : "s") + " fired\n",
                        true});
    }
  }
  return checks;
}

std::string format_alerts_timeline(const AlertsResult& r) {
  return format_alert_timeline(r.alerts, r.start_ns, r.end_ns);
}

std::string format_alert_checks(const AlertsResult& r) {
  std::string text;
  for (const AlertCheck& c : r.checks) text += c.line;
  return text;
}

int alerts_exit_code(const AlertsResult& r) {
  for (const AlertCheck& c : r.checks) {
    if (c.failed) return 1;
  }
  return 0;
}

std::string alerts_json(const AlertsResult& r) {
  return alert_timeline_json(r.alerts, r.start_ns, r.end_ns);
}

}  // namespace llm
