// The timeline's text and JSON: trace times, UTC stamps, and an active alert.
#include "sim/alerts/alert_timeline.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/alerts/testing/alert_times.h"

namespace llm {
namespace {

using testing::kS;
using testing::kStart;

TEST(AlertTimeline, TimesInTraceTimeAndUtc) {
  EXPECT_EQ(trace_time_text(kStart, kStart), "0s");
  EXPECT_EQ(trace_time_text(kStart + 315 * kS, kStart), "5m15s");
  EXPECT_EQ(trace_time_text(kStart + 3605 * kS, kStart), "1h5s");
  EXPECT_EQ(trace_time_text(kStart + 250'000'000, kStart), "250ms");
  EXPECT_EQ(trace_time_text(kStart - 60 * kS, kStart), "-1m");
  EXPECT_EQ(utc_timestamp_text(kStart), "2026-01-01T00:00:00Z");
  EXPECT_EQ(utc_timestamp_text(kStart + 86400 * kS + 90 * kS + 250'000'000),
            "2026-01-02T00:01:30.250Z");
}

std::vector<AlertRuleTimeline> sample() {
  AlertRuleTimeline fired{"Busy", "g", 15 * kS, 60 * kS, 0, {}};
  fired.label_sets.push_back({{{"alertname", "Busy"}, {"engine", "0"}},
                              {AlertEpisode{kStart + 15 * kS, kStart + 75 * kS, kStart + 120 * kS},
                               AlertEpisode{kStart + 300 * kS, std::nullopt, std::nullopt}}});
  AlertRuleTimeline quiet{"Down", "g", 15 * kS, 0, 30 * kS, {}};
  return {fired, quiet};
}

TEST(AlertTimeline, TextListsEachEpisode) {
  const std::string text = format_alert_timeline(sample(), kStart, kStart + 600 * kS);
  for (const char* want :
       {"alerts evaluated from 2026-01-01T00:00:00Z (trace time 0s) to 2026-01-01T00:10:00Z (10m)",
        "Busy (group g, every 15s, for 1m): FIRED\n  {engine=\"0\"}\n"
        "    pending  15s (2026-01-01T00:00:15Z)\n    fired    1m15s (2026-01-01T00:01:15Z)\n"
        "    resolved 2m (2026-01-01T00:02:00Z)\n",
        "    pending  5m (2026-01-01T00:05:00Z)\n    fired    -\n    resolved - (still active)",
        "Down (group g, every 15s, for 0s, keep_firing_for 30s): quiet", "1 of 2 alerts fired"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n---\n" << text;
  }
}

TEST(AlertTimeline, JsonHasSecondsAndStamps) {
  const auto doc = nlohmann::json::parse(alert_timeline_json(sample(), kStart, kStart + 600 * kS));
  EXPECT_EQ(doc["end_s"], 600);
  ASSERT_EQ(doc["alerts"].size(), 2u);
  const auto& busy = doc["alerts"][0];
  EXPECT_EQ(busy["alert"], "Busy");
  EXPECT_EQ(busy["fired"], true);
  EXPECT_EQ(busy["for_s"], 60);
  ASSERT_EQ(busy["episodes"].size(), 2u);
  EXPECT_EQ(busy["episodes"][0]["fired_s"], 75);
  EXPECT_EQ(busy["episodes"][0]["resolved_at"], "2026-01-01T00:02:00Z");
  EXPECT_EQ(busy["episodes"][0]["labels"]["engine"], "0");
  EXPECT_TRUE(busy["episodes"][1]["fired_s"].is_null());
  EXPECT_EQ(doc["alerts"][1]["fired"], false);
  EXPECT_EQ(doc["alerts"][1]["keep_firing_for_s"], 30);
}

}  // namespace
}  // namespace llm
