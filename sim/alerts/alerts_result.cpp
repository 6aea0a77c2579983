#include "sim/alerts/alerts_result.h"

#include <nlohmann/json.hpp>
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

const RuleCoverage* find_coverage(const AlertsResult& r, const std::string& name) {
  for (const auto& c : r.coverage) {
    if (c.alert == name) return &c;
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

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& s : items) text += (text.empty() ? "" : ", ") + s;
  return text;
}

}  // namespace

std::vector<std::string> alert_problems(const AlertsResult& r, const std::string& alert) {
  const RuleCoverage* c = find_coverage(r, alert);
  return c ? coverage_problems(*c, r.end_ns - r.start_ns) : std::vector<std::string>{};
}

std::vector<std::string> alerts_with_problems(const AlertsResult& r) {
  std::vector<std::string> names;
  for (const RuleCoverage& c : r.coverage) {
    if (!coverage_problems(c, r.end_ns - r.start_ns).empty()) names.push_back(c.alert);
  }
  return names;
}

std::vector<AlertCheck> check_alerts(const AlertsResult& r, const AlertExpectations& expect) {
  std::vector<AlertCheck> checks;
  for (const std::string& n : expect.expect_fire) {
    const AlertRuleTimeline* a = find_alert(r.alerts, n);
    if (a && a->ever_fired()) {
      checks.push_back(
          {"expect-fire " + n + ": ok (first fired at " + first_fired_text(*a, r.start_ns) + ")\n",
           false});
    } else {
      checks.push_back({"expect-fire " + n + ": FAILED, it never fired\n", true});
    }
  }
  for (const std::string& n : expect.expect_quiet) {
    const AlertRuleTimeline* a = find_alert(r.alerts, n);
    const RuleCoverage* c = find_coverage(r, n);
    if (a && a->ever_fired()) {
      checks.push_back(
          {"expect-quiet " + n + ": FAILED, it fired at " + first_fired_text(*a, r.start_ns) + "\n",
           true});
    } else if (c && !c->unmatched.empty()) {
      checks.push_back(
          {"expect-quiet " + n + ": FAILED, its quiet proves nothing: " + joined(c->unmatched) +
               " match" + (c->unmatched.size() == 1 ? "es" : "") + " no series of the replay\n",
           true});
    } else if (c && r.end_ns - r.start_ns < c->needed_ns()) {
      checks.push_back({"expect-quiet " + n + ": ok (warning: the replay is shorter than the " +
                            trace_time_text(c->needed_ns(), 0) + " it needs)\n",
                        false});
    } else {
      checks.push_back({"expect-quiet " + n + ": ok\n", false});
    }
  }
  if (expect.fail_on_fire) {
    int fired = 0;
    for (const auto& a : r.alerts) fired += a.ever_fired() ? 1 : 0;
    if (fired > 0) {
      checks.push_back({"fail-on-fire: " + std::to_string(fired) + " alert" +
                            (fired == 1 ? "" : "s") + " fired\n",
                        true});
    }
  }
  if (expect.strict) {
    const std::vector<std::string> names = alerts_with_problems(r);
    if (!names.empty()) {
      checks.push_back({"strict: FAILED, " + std::to_string(names.size()) + " rule" +
                            (names.size() == 1 ? "" : "s") +
                            " cannot be judged on this replay: " + joined(names) + "\n",
                        true});
    }
  }
  return checks;
}

std::string format_alerts_timeline(const AlertsResult& r) {
  TimelineNotes notes;
  for (const FaultWindow& f : r.faults) {
    notes.header.push_back("fault " + fault_spec_text(f) + ": " + fault_description(f));
  }
  const char* severity = r.strict ? "error: " : "warning: ";
  for (const RuleCoverage& c : r.coverage) {
    for (const std::string& p : coverage_problems(c, r.end_ns - r.start_ns)) {
      notes.by_alert[c.alert].push_back(severity + p);
    }
  }
  const size_t problems = alerts_with_problems(r).size();
  if (problems > 0) {
    notes.footer.push_back(std::to_string(problems) + " of " + std::to_string(r.alerts.size()) +
                           " rules cannot be judged on this replay (" +
                           (r.strict ? "errors" : "warnings") + " above)");
  }
  return format_alert_timeline(r.alerts, r.start_ns, r.end_ns, notes);
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
  nlohmann::json doc = alert_timeline_doc(r.alerts, r.start_ns, r.end_ns);
  doc["faults"] = nlohmann::json::array();
  for (const FaultWindow& f : r.faults) {
    nlohmann::json j = {{"spec", fault_spec_text(f)},
                        {"kind", fault_kind_name(f.kind)},
                        {"description", fault_description(f)},
                        {"from_s", static_cast<double>(f.from_ns) / 1e9},
                        {"to_s", static_cast<double>(f.to_ns) / 1e9}};
    if (f.kind != FaultKind::kHttp5xx) j["engine"] = f.engine;
    if (f.kind == FaultKind::kHttp5xx) j["percent"] = f.percent;
    if (f.kind == FaultKind::kSlow) j["factor"] = f.factor;
    doc["faults"].push_back(j);
  }
  doc["strict"] = r.strict;
  for (nlohmann::json& a : doc["alerts"]) {
    const std::string name = a["alert"];
    const RuleCoverage* c = find_coverage(r, name);
    if (!c) continue;
    a["unmatched_selectors"] = c->unmatched;
    a["needs_s"] = static_cast<double>(c->needed_ns()) / 1e9;
    a["problems"] = alert_problems(r, name);
  }
  return doc.dump(2) + "\n";
}

}  // namespace llm
