// What a replay can tell about each alerting rule besides its timeline, so that `llmsim alerts`
// never reports "quiet" for a rule that could not have fired:
// - the selectors of its expression (recording rules inlined) that match no series of the replay
//   (an old metric name such as vllm:num_preemptions for vllm:num_preemptions_total, a label the
//   export lacks): the rule is blind to what it was written for;
// - how long a replay must last for the rule's verdict to mean something: its `for`, plus its
//   group's evaluation interval, plus the longest window its selectors read back (ranges and
//   subqueries, promql_selectors.h).
// Whether a selector matches is a callback: llmsim alerts asks its Prometheus (/api/v1/series over
// the replay), tests answer from a table.
// Thread-safety: pure given the callback.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/alerts/rule_file.h"

namespace llm {

struct RuleCoverage {
  std::string alert;
  std::vector<std::string> unmatched;  // selectors that match no series of the replay
  int64_t for_ns = 0;
  int64_t interval_ns = 0;  // its group's evaluation interval
  int64_t window_ns = 0;    // the longest window a selector of it reads back
  int64_t needed_ns() const { return for_ns + interval_ns + window_ns; }
};

// Whether a selector (as written in the expression) matches any series of the replay.
using SelectorMatchesFn = std::function<bool(const std::string& selector)>;

// One entry per alerting rule, in file order. `matches` is asked once per distinct selector.
// Throws std::invalid_argument when a rule's recording rules cannot be inlined
// (recording_inline.h), naming the alert.
std::vector<RuleCoverage> rule_coverage(const PromRuleFile& file, int64_t default_interval_ns,
                                        const SelectorMatchesFn& matches);

// The problems of one rule on a replay that lasted `replay_ns`, one line each (empty: none):
// "selector X matches no series of the replay" and "the replay (7m) is shorter than the 10m15s
// this rule needs (for 5m + interval 15s + window 5m)".
std::vector<std::string> coverage_problems(const RuleCoverage& coverage, int64_t replay_ns);

}  // namespace llm
