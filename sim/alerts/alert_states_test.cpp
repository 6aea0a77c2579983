// Prometheus's pending/firing/resolved rules, evaluation by evaluation: a table of presence
// patterns with their exact episodes, and invariants over random patterns.
#include "sim/alerts/alert_states.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/alerts/testing/alert_times.h"

namespace llm {
namespace {

using testing::kS;

// Evaluations every 15 s from 0; `pattern` has one character per evaluation: 'x' present, '.' not.
std::vector<AlertEpisode> run(const std::string& pattern, int64_t for_s, int64_t keep_s = 0) {
  std::vector<int64_t> times;
  std::vector<bool> present;
  for (size_t k = 0; k < pattern.size(); ++k) {
    times.push_back(static_cast<int64_t>(k) * 15 * kS);
    present.push_back(pattern[k] == 'x');
  }
  return alert_episodes(times, present, for_s * kS, keep_s * kS);
}

AlertEpisode ep(int64_t pending_s, std::optional<int64_t> fired_s,
                std::optional<int64_t> resolved_s) {
  AlertEpisode e;
  e.pending_ns = pending_s * kS;
  if (fired_s) e.fired_ns = *fired_s * kS;
  if (resolved_s) e.resolved_ns = *resolved_s * kS;
  return e;
}

TEST(AlertEpisodes, FollowPrometheusStateMachine) {
  const auto none = std::nullopt;
  struct Case {
    const char* what;
    std::string pattern;
    int64_t for_s, keep_s;
    std::vector<AlertEpisode> want;
  };
  const Case cases[] = {
      {"never present", ".....", 60, 0, {}},
      {"for 0 fires at once", ".xx..", 0, 0, {ep(15, 15, 45)}},
      {"fires when for has elapsed exactly", "xxxxxx", 60, 0, {ep(0, 60, none)}},
      {"dropped while pending", "xxx.xxxxx", 60, 0, {ep(0, none, 45), ep(60, 120, none)}},
      {"resolves at the first evaluation without it", "xxxxxx..", 30, 0, {ep(0, 30, 90)}},
      {"keep_firing_for holds it through a gap",
       "xxx.x....",
       0,
       30,
       {ep(0, 0, 105)}},  // missing from 45 s (and 75 s): resolved at 105 s = 75 + 30
      {"keep_firing_for ends keep_firing_for after the first miss",
       "xx......",
       0,
       45,
       {ep(0, 0, 75)}},
      {"keep_firing_for does not hold a pending alert",
       "xx..xx",
       60,
       60,
       {ep(0, none, 30), ep(60, none, none)}},
      {"a new episode after resolution", "xx..xx", 0, 0, {ep(0, 0, 30), ep(60, 60, none)}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(run(c.pattern, c.for_s, c.keep_s), c.want) << c.what << ": " << c.pattern;
  }
}

TEST(AlertEpisodes, FiringAtIsFiredInclusiveResolvedExclusive) {
  const AlertEpisode e = ep(0, 60, 120);
  EXPECT_FALSE(firing_at(e, 59 * kS));
  EXPECT_TRUE(firing_at(e, 60 * kS));
  EXPECT_TRUE(firing_at(e, 119 * kS));
  EXPECT_FALSE(firing_at(e, 120 * kS));
  EXPECT_FALSE(firing_at(ep(0, std::nullopt, std::nullopt), 10 * kS));
  EXPECT_TRUE(firing_at(ep(0, 0, std::nullopt), 1000 * kS));
}

TEST(AlertEpisodes, RefusesMismatchedInputs) {
  EXPECT_THROW(alert_episodes({0, 1}, {true}, 0, 0), std::invalid_argument);
}

RC_GTEST_PROP(AlertEpisodes, EpisodesAreOrderedDisjointAndRespectFor,
              (std::vector<bool> present, uint8_t for_steps, uint8_t keep_steps)) {
  const int64_t step = 15 * kS;
  const int64_t for_ns = (for_steps % 8) * step;
  const int64_t keep_ns = (keep_steps % 4) * step;
  std::vector<int64_t> times;
  for (size_t k = 0; k < present.size(); ++k) times.push_back(static_cast<int64_t>(k) * step);
  const auto episodes = alert_episodes(times, present, for_ns, keep_ns);
  int64_t previous_end = -1;
  for (size_t i = 0; i < episodes.size(); ++i) {
    const AlertEpisode& e = episodes[i];
    RC_ASSERT(e.pending_ns > previous_end);
    // An episode starts at an evaluation that holds the label set.
    RC_ASSERT(present[static_cast<size_t>(e.pending_ns / step)]);
    if (e.fired_ns) {
      RC_ASSERT(*e.fired_ns - e.pending_ns >= for_ns);
      RC_ASSERT(*e.fired_ns - e.pending_ns < for_ns + step);
    }
    if (e.resolved_ns) {
      RC_ASSERT(*e.resolved_ns > e.pending_ns);
      RC_ASSERT(!present[static_cast<size_t>(*e.resolved_ns / step)]);
      if (!e.fired_ns || keep_ns == 0) {
        // Without keep_firing_for it holds the label set at every evaluation until resolution.
        for (int64_t t = e.pending_ns; t < *e.resolved_ns; t += step) {
          RC_ASSERT(present[static_cast<size_t>(t / step)]);
        }
      }
      previous_end = *e.resolved_ns;
    } else {
      RC_ASSERT(i + 1 == episodes.size());  // only the last episode may still be active
      previous_end = times.back();
    }
  }
  // Every evaluation that holds the label set belongs to an episode.
  for (size_t k = 0; k < present.size(); ++k) {
    if (!present[k]) continue;
    const int64_t t = times[k];
    bool covered = false;
    for (const auto& e : episodes) {
      covered = covered || (e.pending_ns <= t && (!e.resolved_ns || t < *e.resolved_ns));
    }
    RC_ASSERT(covered);
  }
}

}  // namespace
}  // namespace llm
