// The sweep, capacity and alert sections on synthetic inputs: well-formed SVG, one plot per
// flag / SLO, every plot carrying its points, labels present.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/report/alert_section.h"
#include "sim/report/capacity_section.h"
#include "sim/report/figure_label.h"
#include "sim/report/sweep_section.h"
#include "sim/report/testing/xml_check.h"

namespace llm {
namespace {

using testing::attribute;
using testing::start_tags;
using testing::xml_error;

// {series name -> data-points} of a rendered plot.
std::map<std::string, std::string> series_points(const std::string& svg) {
  std::map<std::string, std::string> out;
  for (const auto& g : start_tags(svg, "g")) {
    if (attribute(g, "class") == "series")
      out[attribute(g, "data-series")] = attribute(g, "data-points");
  }
  return out;
}

std::vector<SweepReportPoint> grid() {
  std::vector<SweepReportPoint> points;
  for (int seqs : {64, 128, 256}) {
    for (const char* dtype : {"auto", "fp8"}) {
      SweepReportPoint p;
      p.flags = {{"max-num-seqs", std::to_string(seqs)}, {"kv-cache-dtype", dtype}};
      p.figures = {{"ttft_p99", seqs / 100.0 + (std::string(dtype) == "fp8" ? 0.0 : 0.5)},
                   {"preemptions", 3}};
      points.push_back(p);
    }
  }
  points.push_back({{{"max-num-seqs", "512"}, {"kv-cache-dtype", "auto"}}, {}, "out of memory"});
  return points;
}

TEST(SweepSection, OnePlotPerSweptFlagWithEveryPointAndTheBestLine) {
  const ReportSection s = sweep_section(grid(), "ttft_p99");
  ASSERT_EQ(s.figures.size(), 2u);
  EXPECT_NE(s.note.find("7 grid points, 6 with a ttft_p99 figure (1 failed"), std::string::npos);
  for (const std::string& svg : s.figures) {
    EXPECT_EQ(xml_error(svg), "");
    EXPECT_NE(svg.find("ttft_p99 (s)"), std::string::npos);
  }
  // Flags in key order of the points' maps: kv-cache-dtype, then max-num-seqs.
  const std::string& dtype = s.figures[0];
  const std::string& seqs = s.figures[1];
  EXPECT_EQ(attribute(start_tags(dtype, "svg")[0], "data-plot"), "sweep-kv-cache-dtype");
  EXPECT_NE(dtype.find(">--kv-cache-dtype</text>"), std::string::npos);
  EXPECT_NE(dtype.find(">auto</text>"), std::string::npos);  // categorical axis
  EXPECT_NE(dtype.find(">fp8</text>"), std::string::npos);
  const std::map<std::string, std::string> want_dtype = {{"every grid point", "6"},
                                                         {"best (lowest) at each value", "2"}};
  EXPECT_EQ(series_points(dtype), want_dtype);
  const std::map<std::string, std::string> want_seqs = {{"every grid point", "6"},
                                                        {"best (lowest) at each value", "3"}};
  EXPECT_EQ(series_points(seqs), want_seqs);
  EXPECT_NE(seqs.find(">--max-num-seqs</text>"), std::string::npos);
  EXPECT_EQ(seqs.find(">512</text>"), std::string::npos);  // the failed point is not plotted
}

TEST(SweepSection, HigherIsBetterPicksTheHighest) {
  std::vector<SweepReportPoint> points = {{{{"a", "1"}}, {{"output_tokens_per_s", 10}}, ""},
                                          {{{"a", "1"}}, {{"output_tokens_per_s", 30}}, ""}};
  const ReportSection s = sweep_section(points, "output_tokens_per_s");
  ASSERT_EQ(s.figures.size(), 1u);
  EXPECT_EQ(series_points(s.figures[0])["best (highest) at each value"], "1");
  EXPECT_NE(s.figures[0].find("output_tokens_per_s (tokens/s)"), std::string::npos);
}

TEST(CapacitySection, OnePlotPerSloWithItsTarget) {
  const std::vector<CapacityReportPoint> points = {
      {4, {{"ttft_p99", 0.5}, {"tpot_p99", 0.04}}},
      {1, {{"ttft_p99", 9.0}, {"tpot_p99", 0.2}}},
      {2, {{"ttft_p99", 2.5}, {"tpot_p99", 0.09}}},
      {3, {{"ttft_p99", 1.2}}},
  };
  const ReportSection s = capacity_section(points, {{"ttft_p99", 2.0}, {"tpot_p99", 0.1}});
  ASSERT_EQ(s.figures.size(), 2u);
  const std::string& tpot = s.figures[0];  // key order
  const std::string& ttft = s.figures[1];
  for (const std::string& svg : s.figures) {
    EXPECT_EQ(xml_error(svg), "");
    EXPECT_NE(svg.find(">engines (data parallel)</text>"), std::string::npos);
    size_t references = 0;
    for (const auto& l : start_tags(svg, "line"))
      references += attribute(l, "class") == "reference";
    EXPECT_EQ(references, 1u);
  }
  EXPECT_EQ(series_points(ttft)["ttft_p99"], "4");
  EXPECT_EQ(series_points(tpot)["tpot_p99"], "3");
  EXPECT_NE(ttft.find(">SLO target 2</text>"), std::string::npos);
  EXPECT_NE(tpot.find(">SLO target 0.1</text>"), std::string::npos);
  EXPECT_NE(ttft.find("ttft_p99 (s)"), std::string::npos);
  // The line goes by engines: x coordinates increase along the polyline.
  const auto poly = start_tags(ttft, "polyline");
  ASSERT_EQ(poly.size(), 1u);
  std::vector<double> xs;
  const std::string points_text = attribute(poly[0], "points");
  for (size_t at = 0; at < points_text.size();) {
    xs.push_back(std::stod(points_text.substr(at)));
    at = points_text.find(' ', at);
    if (at == std::string::npos) break;
    ++at;
  }
  ASSERT_EQ(xs.size(), 4u);
  EXPECT_TRUE(std::is_sorted(xs.begin(), xs.end()));
}

TEST(AlertSection, PendingAndFiringWindowsPerAlertAndLabels) {
  const std::vector<AlertWindow> windows = {
      {"LLMQueueGrowing", {{"engine", "0"}}, 60.0, 120.0, 300.0},
      {"LLMQueueGrowing", {{"engine", "1"}}, 90.0, std::nullopt, 100.0},  // never fired
      {"LLMKVCacheFull", {}, 200.0, 230.0, std::nullopt},                 // still firing
  };
  const ReportSection s = alert_section(windows, 600);
  EXPECT_NE(s.note.find("3 alert instances went pending, 2 fired"), std::string::npos);
  ASSERT_EQ(s.figures.size(), 1u);
  const std::string& svg = s.figures[0];
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_EQ(attribute(start_tags(svg, "svg")[0], "data-points"), "5");
  const std::map<std::string, std::string> want = {{"LLMQueueGrowing{engine=&quot;0&quot;}", "2"},
                                                   {"LLMQueueGrowing{engine=&quot;1&quot;}", "1"},
                                                   {"LLMKVCacheFull", "2"}};
  EXPECT_EQ(series_points(svg), want);
  for (const char* text :
       {">trace time (s)</text>", ">pending</text>", ">firing</text>",
        "<title>pending 60 s to 120 s</title>", "<title>firing 120 s to 300 s</title>",
        "<title>pending 90 s to 100 s</title>", "<title>firing 230 s to 600 s</title>"}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
}

TEST(AlertSection, NoWindowsSaysSo) {
  const ReportSection s = alert_section({}, 100);
  EXPECT_EQ(xml_error(s.figures[0]), "");
  EXPECT_NE(s.figures[0].find("no alert went pending"), std::string::npos);
}

TEST(FigureAxisLabel, UnitsByFigure) {
  struct Row {
    const char* key;
    const char* want;
  };
  for (const Row& r :
       {Row{"ttft_p99", "ttft_p99 (s)"}, Row{"request_ttft_p50", "request_ttft_p50 (s)"},
        Row{"e2e_mean", "e2e_mean (s)"}, Row{"preemptions", "preemptions"},
        Row{"output_tokens_per_s", "output_tokens_per_s (tokens/s)"},
        Row{"peak_kv_usage", "peak_kv_usage (fraction)"}, Row{"duration_s", "duration_s (s)"}}) {
    EXPECT_EQ(figure_axis_label(r.key), r.want);
  }
}

}  // namespace
}  // namespace llm
