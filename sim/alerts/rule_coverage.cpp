#include "sim/alerts/rule_coverage.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/alerts/promql_selectors.h"
#include "sim/alerts/recording_inline.h"
#include "sim/time_text.h"

namespace llm {

std::vector<RuleCoverage> rule_coverage(const PromRuleFile& file, int64_t default_interval_ns,
                                        const SelectorMatchesFn& matches) {
  const auto records = recording_rules(file);
  std::map<std::string, bool> known;  // selector -> matches
  std::vector<RuleCoverage> out;
  for (const PromRuleGroup& g : file.groups) {
    for (const PromRule& r : g.rules) {
      if (r.alert.empty()) continue;
      RuleCoverage c;
      c.alert = r.alert;
      c.for_ns = r.for_ns;
      c.interval_ns = g.interval_ns > 0 ? g.interval_ns : default_interval_ns;
      std::string expr;
      try {
        expr = inline_recording_rules(r.expr, records);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("alert " + r.alert + " (line " + std::to_string(r.line) +
                                    "): " + e.what());
      }
      for (const PromSelector& s : promql_selectors(expr)) {
        c.window_ns = std::max(c.window_ns, s.window_ns);
        auto it = known.find(s.text);
        if (it == known.end()) it = known.emplace(s.text, matches(s.text)).first;
        if (!it->second) c.unmatched.push_back(s.text);
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<std::string> coverage_problems(const RuleCoverage& c, int64_t replay_ns) {
  std::vector<std::string> problems;
  for (const std::string& s : c.unmatched) {
    problems.push_back("selector " + s +
                       " matches no series of the replay: the rule cannot see what it is written "
                       "for, and its quiet proves nothing");
  }
  if (replay_ns < c.needed_ns()) {
    problems.push_back("the replay (" + trace_time_text(replay_ns, 0) + ") is shorter than the " +
                       trace_time_text(c.needed_ns(), 0) +
                       " this rule needs to mean something (for " + trace_time_text(c.for_ns, 0) +
                       " + interval " + trace_time_text(c.interval_ns, 0) + " + window " +
                       trace_time_text(c.window_ns, 0) + ")");
  }
  return problems;
}

}  // namespace llm
