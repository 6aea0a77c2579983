#include "sim/alerts/alert_states.h"

#include <stdexcept>

namespace llm {

std::vector<AlertEpisode> alert_episodes(const std::vector<int64_t>& eval_times_ns,
                                         const std::vector<bool>& present, int64_t for_ns,
                                         int64_t keep_firing_for_ns) {
  if (eval_times_ns.size() != present.size()) {
    throw std::invalid_argument("alert_episodes: one presence flag per evaluation");
  }
  std::vector<AlertEpisode> episodes;
  bool active = false;
  std::optional<int64_t> missing_since;  // keep_firing_for: first evaluation without the set
  for (size_t k = 0; k < eval_times_ns.size(); ++k) {
    const int64_t ts = eval_times_ns[k];
    if (present[k]) {
      missing_since.reset();
      if (!active) {
        episodes.push_back(AlertEpisode{ts, std::nullopt, std::nullopt});
        active = true;
      }
    } else if (active) {
      AlertEpisode& e = episodes.back();
      bool keep_firing = false;
      if (e.fired_ns && keep_firing_for_ns > 0) {
        if (!missing_since) missing_since = ts;
        keep_firing = ts - *missing_since < keep_firing_for_ns;
      }
      if (!keep_firing) {
        e.resolved_ns = ts;
        active = false;
        missing_since.reset();
        continue;
      }
    }
    if (active) {
      AlertEpisode& e = episodes.back();
      if (!e.fired_ns && ts - e.pending_ns >= for_ns) e.fired_ns = ts;
    }
  }
  return episodes;
}

bool firing_at(const AlertEpisode& episode, int64_t t_ns) {
  return episode.fired_ns && *episode.fired_ns <= t_ns &&
         (!episode.resolved_ns || t_ns < *episode.resolved_ns);
}

}  // namespace llm
