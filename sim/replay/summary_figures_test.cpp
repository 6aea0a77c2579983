#include "sim/replay/summary_figures.h"

#include <gtest/gtest.h>

#include <set>

namespace llm {
namespace {

ReplaySummary distinct_figures() {
  ReplaySummary s;
  s.ttft = {10, 1.0, 1.5, 1.9, 1.99, 2.0};
  s.tpot = {10, 0.01, 0.015, 0.019, 0.0199, 0.02};
  s.e2e.p99 = 7.5;
  s.queue.max = 3.25;
  s.itl.p50 = 0.03;
  s.preemptions = 4;
  s.peak_kv_usage = 0.75;
  s.output_tokens_per_s = 123.5;
  s.duration_s = 60;
  return s;
}

TEST(SummaryFigures, NamesReadTheFiguresTheyName) {
  const ReplaySummary s = distinct_figures();
  struct Row {
    const char* key;
    double want;
  };
  for (const Row& row :
       {Row{"ttft_mean", 1.0}, Row{"ttft_p50", 1.5}, Row{"ttft_p90", 1.9}, Row{"ttft_p99", 1.99},
        Row{"ttft_max", 2.0}, Row{"tpot_p99", 0.0199}, Row{"e2e_p99", 7.5}, Row{"queue_max", 3.25},
        Row{"itl_p50", 0.03}, Row{"preemptions", 4}, Row{"peak_kv_usage", 0.75},
        Row{"output_tokens_per_s", 123.5}, Row{"duration_s", 60}}) {
    const auto got = summary_figure(s, row.key);
    ASSERT_TRUE(got.has_value()) << row.key;
    EXPECT_DOUBLE_EQ(*got, row.want) << row.key;
  }
}

TEST(SummaryFigures, UnknownNamesHaveNoFigure) {
  const ReplaySummary s = distinct_figures();
  for (const char* key : {"", "ttft", "ttft_", "ttft_p95", "p99", "_p99", "ttft_p99x",
                          "request_ttft", "preemption", "TTFT_P99"}) {
    EXPECT_FALSE(summary_figure(s, key).has_value()) << key;
  }
}

TEST(SummaryFigures, EveryListedKeyResolvesAndKeysAreUnique) {
  const ReplaySummary s;
  const auto& keys = summary_figure_keys();
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
  for (const std::string& key : keys) EXPECT_TRUE(summary_figure(s, key).has_value()) << key;
  EXPECT_GE(keys.size(), 40u);
}

TEST(SummaryFigures, ThroughputsAndHitRateAreBetterHigher) {
  EXPECT_TRUE(lower_is_better("ttft_p99"));
  EXPECT_TRUE(lower_is_better("preemptions"));
  EXPECT_FALSE(lower_is_better("output_tokens_per_s"));
  EXPECT_FALSE(lower_is_better("input_tokens_per_s"));
  EXPECT_FALSE(lower_is_better("prefix_hit_rate"));
}

}  // namespace
}  // namespace llm
