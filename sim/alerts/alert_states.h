// Prometheus's alert state machine over a series of rule evaluations, for one label set: the
// alert goes pending at the first evaluation whose result holds the label set, fires at the first
// evaluation at least `for` after that, and resolves at the first evaluation without it (a pending
// alert is dropped there without having fired). With keep_firing_for, a firing alert whose label
// set is gone keeps firing until an evaluation keep_firing_for or more after the first one that
// missed it; if the label set comes back before then it simply goes on firing.
// (As rules/alerting.go's AlertingRule.Eval; times are those of the evaluations.)
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace llm {

struct AlertEpisode {
  int64_t pending_ns = 0;
  std::optional<int64_t> fired_ns;     // absent: dropped before `for` elapsed
  std::optional<int64_t> resolved_ns;  // absent: still pending or firing at the last evaluation
  bool operator==(const AlertEpisode&) const = default;
};

// `eval_times_ns` ascending; present[k] says whether evaluation k returned the label set.
std::vector<AlertEpisode> alert_episodes(const std::vector<int64_t>& eval_times_ns,
                                         const std::vector<bool>& present, int64_t for_ns,
                                         int64_t keep_firing_for_ns);

// True when an episode is firing at `t_ns` (fired at or before it, resolved after it).
bool firing_at(const AlertEpisode& episode, int64_t t_ns);

}  // namespace llm
