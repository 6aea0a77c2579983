#include "sim/report/figure_map.h"

#include <gtest/gtest.h>

#include "sim/replay/summary_figures.h"

namespace llm {
namespace {

TEST(SummaryFigureMap, EveryKeyWithItsFigure) {
  ReplaySummary s;
  s.ttft.p99 = 1.25;
  s.tpot.p50 = 0.004;
  s.preemptions = 7;
  const auto figures = summary_figure_map(s);
  EXPECT_EQ(figures.size(), summary_figure_keys().size());
  EXPECT_DOUBLE_EQ(figures.at("ttft_p99"), 1.25);
  EXPECT_DOUBLE_EQ(figures.at("tpot_p50"), 0.004);
  EXPECT_DOUBLE_EQ(figures.at("preemptions"), 7);
  for (const auto& [key, value] : figures) EXPECT_EQ(value, *summary_figure(s, key)) << key;
}

}  // namespace
}  // namespace llm
